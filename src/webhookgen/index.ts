/**
 * Admission webhook configurations from `+kubebuilder:webhook` markers (controller-gen's pkg/webhook/parser.go):
 * one MutatingWebhookConfiguration and one ValidatingWebhookConfiguration, each marker one entry, entries sorted
 * by name; `+kubebuilder:webhookconfiguration` renames a configuration. The markers' effects (src/markers/defs/webhook.ts)
 * check and build the entries; this module applies them and assembles the configurations.
 */
import type { Marker } from '../markers/collector.js';
import type { DiagnosticBag } from '../diagnostics.js';
import type { JSONValue } from '../markers/apiextensions.js';
import type { WebhookManifests } from '../markers/defs/effect.js';
import { definitionNamed } from '../markers/registry.js';

/** A generated Mutating- or ValidatingWebhookConfiguration, one entry per `+kubebuilder:webhook` marker. */
export interface WebhookConfiguration {
  apiVersion: 'admissionregistration.k8s.io/v1';
  kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration';
  metadata: { name: string };
  webhooks: Array<Record<string, JSONValue>>;
}

/**
 * The webhook configurations for the markers: mutating first, then validating, each left out when no marker asks for
 * it; problems go to `diags`.
 */
export function generateWebhookConfigurations(
  markers: readonly Marker[],
  diags: DiagnosticBag,
): WebhookConfiguration[] {
  const manifests: WebhookManifests = {
    names: { mutating: 'mutating-webhook-configuration', validating: 'validating-webhook-configuration' },
    renamed: new Set(),
    webhooks: { mutating: [], validating: [] },
  };
  // the configurations' names first, then their entries
  for (const kind of ['webhook-configuration', 'webhook'] as const) {
    for (const m of markers) {
      const effect = definitionNamed(m.name)?.effect;
      if (effect?.on === kind) effect.apply(manifests, m.value, (msg) => diags.at(m.pos, msg));
    }
  }
  const {
    names,
    webhooks: { mutating, validating },
  } = manifests;
  const byName = (a: Record<string, JSONValue>, b: Record<string, JSONValue>): number =>
    String(a.name) < String(b.name) ? -1 : String(a.name) > String(b.name) ? 1 : 0;
  const out: WebhookConfiguration[] = [];
  if (mutating.length > 0) {
    out.push({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: names.mutating },
      webhooks: mutating.sort(byName),
    });
  }
  if (validating.length > 0) {
    out.push({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: names.validating },
      webhooks: validating.sort(byName),
    });
  }
  return out;
}
