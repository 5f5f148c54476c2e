import { defineResource } from '../rest/resource.js';
import type { Client } from '../client/client.js';
import type { KubeObject } from '../rest/types.js';
import { crypto } from '../internal/builtins.js';

const { createHash } = crypto;

// authentication.k8s.io/v1 TokenReview and authorization.k8s.io/v1 SubjectAccessReview, only as /metrics needs them.
interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}
interface TokenReview extends KubeObject {
  spec: { token: string; audiences?: string[] };
  status?: { authenticated?: boolean; user?: UserInfo; error?: string };
}
interface SubjectAccessReview extends KubeObject {
  spec: UserInfo & { user?: string; nonResourceAttributes?: { path: string; verb: string } };
  status?: { allowed: boolean; denied?: boolean; reason?: string; evaluationError?: string };
}

const TokenReviews = defineResource<TokenReview>({
  group: 'authentication.k8s.io',
  version: 'v1',
  kind: 'TokenReview',
  plural: 'tokenreviews',
  namespaced: false,
});
const SubjectAccessReviews = defineResource<SubjectAccessReview>({
  group: 'authorization.k8s.io',
  version: 'v1',
  kind: 'SubjectAccessReview',
  plural: 'subjectaccessreviews',
  namespaced: false,
});

/**
 * What DelegatingAuth decided about a scrape: allowed (and for whom), or the HTTP status and message to answer with.
 */
export type AuthDecision = { allowed: true; user: string } | { allowed: false; code: 401 | 403 | 500; message: string };

/** Results kept for a while, as the delegating authenticator/authorizer in controller-runtime's filter do. */
class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();
  constructor(private readonly maxEntries = 1024) {}
  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.expires <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }
  set(key: string, value: V, ttlMs: number): void {
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, expires: Date.now() + ttlMs });
  }
}

const AUTHN_TTL_MS = 60_000;
const ALLOW_TTL_MS = 5 * 60_000;
const DENY_TTL_MS = 30_000;

/**
 * controller-runtime's WithAuthenticationAndAuthorization filter: the bearer token must pass a TokenReview and
 * its user a SubjectAccessReview for the request's non-resource path and lowercased method (get /metrics).
 */
export class DelegatingAuth {
  private readonly authn = new TtlCache<UserInfo | null>();
  private readonly authz = new TtlCache<boolean>();

  constructor(private readonly client: Client) {}

  async check(authorization: string | undefined, method: string, path: string): Promise<AuthDecision> {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    if (token === undefined) return { allowed: false, code: 401, message: 'Unauthorized' };
    let user: UserInfo | null;
    try {
      user = await this.authenticate(token);
    } catch {
      return { allowed: false, code: 401, message: 'Unauthorized' };
    }
    if (user === null) return { allowed: false, code: 401, message: 'Unauthorized' };
    const verb = method.toLowerCase();
    let allowed: boolean;
    try {
      allowed = await this.authorize(user, verb, path);
    } catch {
      return { allowed: false, code: 500, message: `Authorization for user ${user.username ?? ''} failed` };
    }
    if (!allowed) return { allowed: false, code: 403, message: `Authorization denied for user ${user.username ?? ''}` };
    return { allowed: true, user: user.username ?? '' };
  }

  private async authenticate(token: string): Promise<UserInfo | null> {
    const key = createHash('sha256').update(token).digest('hex');
    const cached = this.authn.get(key);
    if (cached !== undefined) return cached;
    const review = await this.client.create(TokenReviews, {
      apiVersion: TokenReviews.apiVersion,
      kind: TokenReviews.kind,
      spec: { token },
    });
    const user = review.status?.authenticated ? (review.status.user ?? {}) : null;
    this.authn.set(key, user, AUTHN_TTL_MS);
    return user;
  }

  private async authorize(user: UserInfo, verb: string, path: string): Promise<boolean> {
    const key = JSON.stringify([user.username, user.uid, user.groups, user.extra, verb, path]);
    const cached = this.authz.get(key);
    if (cached !== undefined) return cached;
    const review = await this.client.create(SubjectAccessReviews, {
      apiVersion: SubjectAccessReviews.apiVersion,
      kind: SubjectAccessReviews.kind,
      spec: {
        user: user.username,
        uid: user.uid,
        groups: user.groups,
        extra: user.extra,
        nonResourceAttributes: { path, verb },
      },
    });
    const allowed = review.status?.allowed === true;
    this.authz.set(key, allowed, allowed ? ALLOW_TTL_MS : DENY_TTL_MS);
    return allowed;
  }
}
