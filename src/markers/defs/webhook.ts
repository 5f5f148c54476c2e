/**
 * Webhook markers (controller-gen's pkg/webhook/parser.go): each `+kubebuilder:webhook` is one entry of the mutating
 * or the validating webhook configuration, with controller-gen's checks; `+kubebuilder:webhookconfiguration` names a
 * configuration. src/webhookgen sorts the entries and writes the configurations.
 */
import type { JSONValue } from '@kubescaffold/runtime/json';
import { applyMergePatch } from '@kubescaffold/runtime/json';
import { bool, int, string } from '../grammar.js';
import { opt, PKG, strings, struct, type MarkerDefinition, type MarkerGroup } from './define.js';
import type { WebhookEffect } from './effect.js';

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

const caseFold = (value: string, known: readonly string[]): string =>
  known.find((k) => k.toLowerCase() === value.toLowerCase()) ?? value;

/** The configuration entry of one marker, or undefined after reporting why there is none. */
function toWebhook(w: WebhookMarker, report: (message: string) => void): Record<string, JSONValue> | undefined {
  const fail = (msg: string): undefined => {
    report(`+kubebuilder:webhook ${w.name}: ${msg}`);
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
    if (mp !== 'Exact' && mp !== 'Equivalent')
      return fail(`unknown value ${JSON.stringify(w.matchPolicy)} for matchPolicy; use Exact or Equivalent`);
    out.matchPolicy = mp;
  }
  const se = w.sideEffects ? caseFold(w.sideEffects, ['None', 'NoneOnDryRun', 'Some', 'Unknown']) : undefined;
  if (se === undefined)
    return fail(
      'SideEffects is required for creating v1 {Mutating,Validating}WebhookConfiguration; add sideEffects=None',
    );
  if (se !== 'None' && se !== 'NoneOnDryRun')
    return fail(
      'SideEffects should not be set to `Some` or `Unknown` for v1 {Mutating,Validating}WebhookConfiguration; use None or NoneOnDryRun',
    );
  out.sideEffects = se;
  if (w.timeoutSeconds !== undefined && w.timeoutSeconds !== 0) {
    if (w.timeoutSeconds < 1 || w.timeoutSeconds > 30) return fail('TimeoutSeconds must be between 1 and 30 seconds');
    out.timeoutSeconds = w.timeoutSeconds;
  }
  if (w.admissionReviewVersions.length === 0)
    return fail('AdmissionReviewVersions is mandatory for v1 {Mutating,Validating}WebhookConfiguration');
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

/** `+kubebuilder:webhook:...`: one admission webhook. */
export const webhook: MarkerDefinition<WebhookEffect> = {
  name: 'kubebuilder:webhook',
  targets: PKG,
  shape: struct({
    mutating: bool,
    failurePolicy: string,
    matchPolicy: opt(string),
    sideEffects: opt(string),
    timeoutSeconds: opt(int),
    groups: strings,
    resources: strings,
    verbs: strings,
    versions: strings,
    name: string,
    path: opt(string),
    url: opt(string),
    serviceName: opt(string),
    serviceNamespace: opt(string),
    servicePort: opt(int),
    webhookVersions: opt(strings),
    admissionReviewVersions: strings,
    reinvocationPolicy: opt(string),
    patch: opt(string),
  }),
  help: 'an admission webhook, e.g. +kubebuilder:webhook:path=/mutate-...,mutating=true,failurePolicy=fail,sideEffects=None,groups=...,resources=...,verbs=create;update,versions=v1,name=m....io,admissionReviewVersions=v1',
  effect: {
    on: 'webhook',
    apply(manifests, value, report) {
      const w = value as unknown as WebhookMarker;
      const hook = toWebhook(w, report);
      if (hook) manifests.webhooks[w.mutating ? 'mutating' : 'validating'].push(hook);
    },
  },
};

/** `+kubebuilder:webhookconfiguration:mutating=true,name=...`: the name of one of the configurations. */
export const webhookConfiguration: MarkerDefinition<WebhookEffect> = {
  name: 'kubebuilder:webhookconfiguration',
  targets: PKG,
  shape: struct({ mutating: bool, name: opt(string) }),
  help: 'names the webhook configuration object',
  effect: {
    on: 'webhook-configuration',
    apply(manifests, value, report) {
      const v = value as { mutating: boolean; name?: string };
      const which = v.mutating ? 'mutating' : 'validating';
      if (manifests.renamed.has(which)) {
        report(`duplicate ${which} kubebuilder:webhookconfiguration with name ${v.name ?? ''}; keep one`);
        return;
      }
      manifests.renamed.add(which);
      if (v.name) manifests.names[which] = v.name;
    },
  },
};

/** The webhook markers, as the marker reference lists them. */
export const webhookMarkers: MarkerGroup = { title: 'Webhooks', definitions: [webhook, webhookConfiguration] };
