/**
 * Finds the API server's Forbidden answers in the manager's log and turns each distinct missing permission into the
 * RBAC marker that grants it. The API server words every RBAC denial the same way:
 *   configmaps is forbidden: User "system:serviceaccount:ns:sa" cannot create resource "configmaps" in API group ""
 *   in the namespace "default"   (or: at the cluster scope)
 * In JSON log lines the quotes arrive escaped (\"), which the pattern allows.
 */

/** One missing permission. */
export interface MissingPermission {
  user: string;
  verb: string;
  group: string;
  /** The resource, with its subresource after a slash (guestbooks/status). */
  resource: string;
  /** Unset at the cluster scope. */
  namespace?: string;
}

const Q = String.raw`\\?"`;
const FORBIDDEN = new RegExp(
  String.raw`User ${Q}([^"\\]+)${Q} cannot (\w+) resource ${Q}([^"\\]+)${Q} in API group ${Q}([^"\\]*)${Q}(?: in the namespace ${Q}([^"\\]+)${Q})?`,
  'g',
);

/** Every missing permission named in `text`. */
export function parseForbidden(text: string): MissingPermission[] {
  return [...text.matchAll(FORBIDDEN)].map((m) => ({
    user: m[1]!,
    verb: m[2]!,
    resource: m[3]!,
    group: m[4]!,
    ...(m[5] !== undefined ? { namespace: m[5] } : {}),
  }));
}

/** The marker that grants `p`, as kubebuilder writes RBAC markers (the core group is "core"). */
export function rbacMarker(p: MissingPermission): string {
  return `// +kubebuilder:rbac:groups=${p.group === '' ? 'core' : p.group},resources=${p.resource},verbs=${p.verb}`;
}

/** Reports each distinct missing permission once, however often the manager retries. */
export class ForbiddenReporter {
  private readonly seen = new Set<string>();

  constructor(private readonly report: (line: string) => void) {}

  /** Feeds a chunk of the manager's output. */
  scan(text: string): void {
    for (const p of parseForbidden(text)) {
      const key = `${p.verb} ${p.group}/${p.resource} ${p.namespace ?? ''}`;
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      const where = p.namespace ? `in namespace ${p.namespace}` : 'at the cluster scope';
      this.report(
        `Forbidden: ${p.user} may not ${p.verb} ${p.resource} (API group "${p.group}") ${where}. ` +
          `Add this marker above the reconciler that needs it, then run \`npx scaffold manifests\`:\n    ${rbacMarker(p)}`,
      );
    }
  }

  /** The permissions reported so far. */
  get count(): number {
    return this.seen.size;
  }
}
