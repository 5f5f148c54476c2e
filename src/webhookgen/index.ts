/**
 * Admission webhook configurations from `+kubebuilder:webhook` markers (controller-gen's pkg/webhook/parser.go):
 * one MutatingWebhookConfiguration and one ValidatingWebhookConfiguration, each marker one entry, entries sorted
 * by name; `+kubebuilder:webhookconfiguration` renames a configuration.
 */
import type { Marker } from '../markers/collector.js';
import type { DiagnosticBag } from '../diagnostics.js';
import type { JSONValue } from '../crd/types.js';
import { applyMergePatch } from '@kubescaffold/runtime/json';

interface WebhookMarker {
  mutating: boolean;
  failurePolicy: string;
  matchPolicy?: string;
  sideEffects?: string;
  timeoutSeconds?: number;
  groups: string[];
  resources: string[];
  verbs: string[];
  versions: string[];
  name: string;
  path?: string;
  url?: string;
  serviceName?: string;
  serviceNamespace?: string;
  servicePort?: number;
  webhookVersions?: string[];
  admissionReviewVersions: string[];
  reinvocationPolicy?: string;
  patch?: string;
}

/** A generated Mutating- or ValidatingWebhookConfiguration, one entry per `+kubebuilder:webhook` marker. */
export interface WebhookConfiguration {
  apiVersion: 'admissionregistration.k8s.io/v1';
  kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration';
  metadata: { name: string };
  webhooks: Array<Record<string, JSONValue>>;
}

const caseFold = (value: string, known: readonly string[]): string => known.find((k) => k.toLowerCase() === value.toLowerCase()) ?? value;

function toWebhook(w: WebhookMarker, m: Marker, diags: DiagnosticBag): Record<string, JSONValue> | undefined {
  const fail = (msg: string): undefined => {
    diags.at(m.pos, `+kubebuilder:webhook ${w.name}: ${msg}`);
    return undefined;
  };
  if (!!w.path === !!w.url) return fail('`url` or `path` markers are required and mutually exclusive');
  const clientConfig: Record<string, JSONValue> = w.path
    ? {
        service: {
          name: w.serviceName || 'webhook-service',
          namespace: w.serviceNamespace || 'system',
          path: w.path,
          ...(w.servicePort !== undefined ? { port: w.servicePort } : {}),
        },
      }
    : { url: w.url! };
  const out: Record<string, JSONValue> = {
    admissionReviewVersions: w.admissionReviewVersions,
    clientConfig,
    failurePolicy: caseFold(w.failurePolicy, ['Fail', 'Ignore']),
    name: w.name,
    rules: [
      {
        apiGroups: w.groups.map((g) => (g === 'core' ? '' : g)),
        apiVersions: w.versions,
        operations: w.verbs.map((v) => caseFold(v, ['CREATE', 'UPDATE', 'DELETE', 'CONNECT', '*'])),
        resources: w.resources,
      },
    ],
  };
  if (w.matchPolicy) {
    const mp = caseFold(w.matchPolicy, ['Exact', 'Equivalent']);
    if (mp !== 'Exact' && mp !== 'Equivalent') return fail(`unknown value ${JSON.stringify(w.matchPolicy)} for matchPolicy; use Exact or Equivalent`);
    out.matchPolicy = mp;
  }
  const se = w.sideEffects ? caseFold(w.sideEffects, ['None', 'NoneOnDryRun', 'Some', 'Unknown']) : undefined;
  if (se === undefined) return fail('SideEffects is required for creating v1 {Mutating,Validating}WebhookConfiguration; add sideEffects=None');
  if (se !== 'None' && se !== 'NoneOnDryRun') return fail('SideEffects should not be set to `Some` or `Unknown` for v1 {Mutating,Validating}WebhookConfiguration; use None or NoneOnDryRun');
  out.sideEffects = se;
  if (w.timeoutSeconds !== undefined && w.timeoutSeconds !== 0) {
    if (w.timeoutSeconds < 1 || w.timeoutSeconds > 30) return fail('TimeoutSeconds must be between 1 and 30 seconds');
    out.timeoutSeconds = w.timeoutSeconds;
  }
  if (w.admissionReviewVersions.length === 0) return fail('AdmissionReviewVersions is mandatory for v1 {Mutating,Validating}WebhookConfiguration');
  if (w.reinvocationPolicy) {
    const rp = caseFold(w.reinvocationPolicy, ['Never', 'IfNeeded']);
    if (!w.mutating) return fail('reinvocationPolicy applies to mutating webhooks only');
    if (rp === 'Never' || rp === 'IfNeeded') out.reinvocationPolicy = rp;
  }
  for (const v of w.webhookVersions ?? []) if (v !== 'v1') return fail(`unsupported webhook version: ${v}`);
  if (w.patch && w.patch.trim() !== '') {
    let patch: JSONValue;
    try {
      patch = JSON.parse(w.patch) as JSONValue;
    } catch (err) {
      return fail(`failed to apply patch: ${(err as Error).message}`);
    }
    // A strategic merge patch amounts to a merge patch for webhook entries, whose lists have no merge keys.
    return applyMergePatch(out, patch) as Record<string, JSONValue>;
  }
  return out;
}

/**
 * The webhook configurations for the markers: mutating first, then validating, each left out when no marker asks for
 * it; problems go to `diags`.
 */
export function generateWebhookConfigurations(markers: readonly Marker[], diags: DiagnosticBag): WebhookConfiguration[] {
  const names = { mutating: 'mutating-webhook-configuration', validating: 'validating-webhook-configuration' };
  const renamed = { mutating: false, validating: false };
  for (const m of markers) {
    if (m.name !== 'kubebuilder:webhookconfiguration') continue;
    const v = m.value as { mutating: boolean; name?: string };
    const which = v.mutating ? 'mutating' : 'validating';
    if (renamed[which]) {
      diags.at(m.pos, `duplicate ${which} kubebuilder:webhookconfiguration with name ${v.name ?? ''}; keep one`);
      continue;
    }
    renamed[which] = true;
    if (v.name) names[which] = v.name;
  }
  const mutating: Array<Record<string, JSONValue>> = [];
  const validating: Array<Record<string, JSONValue>> = [];
  for (const m of markers) {
    if (m.name !== 'kubebuilder:webhook') continue;
    const w = m.value as unknown as WebhookMarker;
    const hook = toWebhook(w, m, diags);
    if (hook) (w.mutating ? mutating : validating).push(hook);
  }
  const byName = (a: Record<string, JSONValue>, b: Record<string, JSONValue>): number => (String(a.name) < String(b.name) ? -1 : String(a.name) > String(b.name) ? 1 : 0);
  const out: WebhookConfiguration[] = [];
  if (mutating.length > 0) {
    out.push({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: names.mutating }, webhooks: mutating.sort(byName) });
  }
  if (validating.length > 0) {
    out.push({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: names.validating }, webhooks: validating.sort(byName) });
  }
  return out;
}
