/**
 * Puts a locally generated CA where the API server needs it: the caBundle of each MutatingWebhookConfiguration or
 * ValidatingWebhookConfiguration entry, and of each CRD conversion webhook, whose clientConfig.url points at this
 * server. Entries that name a Service belong to a deployed manager (and its cert-manager CA) and are left alone.
 */
import { isNotFound } from '../rest/errors.js';
import {
  CustomResourceDefinitions,
  MutatingWebhookConfigurations,
  ValidatingWebhookConfigurations,
} from '../rest/builtins.js';
import type { Client } from '../client/client.js';
import type { KubeObject, Resource } from '../rest/types.js';
import type { Logger } from '../log/index.js';

/** Where this server can be reached: the host names and addresses in its certificate, and its port. */
export interface ServingEndpoint {
  /** Host names and IP addresses the server is reachable at. */
  hosts: ReadonlySet<string>;
  /** The port it listens on. */
  port: number;
}

interface ClientConfig {
  url?: string;
  caBundle?: string;
}

interface WebhookConfigurationLike extends KubeObject {
  webhooks?: Array<{ name?: string; clientConfig?: ClientConfig }>;
}

interface CRDLike extends KubeObject {
  spec?: { conversion?: { strategy?: string; webhook?: { clientConfig?: ClientConfig } } };
}

/** True when `url` is https to one of the endpoint's hosts on its port. */
export function pointsAt(url: string | undefined, endpoint: ServingEndpoint): boolean {
  if (!url) return false;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  const host = u.hostname.replace(/^\[|\]$/g, '');
  return u.protocol === 'https:' && endpoint.hosts.has(host) && Number(u.port || 443) === endpoint.port;
}

/** Where a CA goes (see injectCABundle). */
export interface CABundleInjection {
  /** The CA certificate (PEM). */
  caPem: string;
  /** The server whose webhooks get it: entries whose URL points here. */
  endpoint: ServingEndpoint;
  /** Kinds whose CRD's conversion webhook gets it when it points at the endpoint. */
  conversionKinds: readonly Resource[];
  /** Where injections are logged. */
  log: Logger;
}

/**
 * Patches the CA into every webhook configuration entry that points at the endpoint, and into the conversion
 * webhook of each CRD of `conversionKinds` that does. Returns what it patched ("MutatingWebhookConfiguration/name:
 * webhook"); failures (no RBAC, no such API) are logged, never thrown: the server serves either way.
 */
export async function injectCABundle(
  client: Client,
  { caPem, endpoint, conversionKinds, log }: CABundleInjection,
): Promise<string[]> {
  const caBundle = Buffer.from(caPem).toString('base64');
  const patched: string[] = [];
  for (const res of [
    MutatingWebhookConfigurations,
    ValidatingWebhookConfigurations,
  ] as Resource<WebhookConfigurationLike>[]) {
    let items: WebhookConfigurationLike[];
    try {
      items = (await client.list(res)).items;
    } catch (err) {
      log.error(err, 'cannot list webhook configurations to set their caBundle', { kind: res.kind });
      continue;
    }
    for (const cfg of items) {
      const ops: unknown[] = [];
      const names: string[] = [];
      (cfg.webhooks ?? []).forEach((w, i) => {
        if (!pointsAt(w.clientConfig?.url, endpoint) || w.clientConfig?.caBundle === caBundle) return;
        // The test guards the index: if someone reordered the entries meanwhile, the patch fails instead of hitting another.
        ops.push({ op: 'test', path: `/webhooks/${i}/clientConfig/url`, value: w.clientConfig!.url });
        ops.push({ op: 'add', path: `/webhooks/${i}/clientConfig/caBundle`, value: caBundle });
        names.push(w.name ?? String(i));
      });
      if (ops.length === 0) continue;
      const name = cfg.metadata?.name ?? '';
      try {
        await client.patch(res, { name }, ops, { type: 'json' });
        patched.push(...names.map((n) => `${res.kind}/${name}: ${n}`));
      } catch (err) {
        log.error(err, 'cannot set the caBundle of a webhook configuration', { kind: res.kind, name });
      }
    }
  }
  const crds = CustomResourceDefinitions as unknown as Resource<CRDLike>;
  for (const kind of conversionKinds) {
    const name = `${kind.plural}.${kind.group}`;
    let crd: CRDLike;
    try {
      crd = await client.get(crds, { name });
    } catch (err) {
      if (!isNotFound(err)) log.error(err, 'cannot read a CRD to set its conversion caBundle', { crd: name });
      continue;
    }
    const conv = crd.spec?.conversion;
    const url = conv?.webhook?.clientConfig?.url;
    if (conv?.strategy !== 'Webhook' || !pointsAt(url, endpoint) || conv.webhook?.clientConfig?.caBundle === caBundle)
      continue;
    try {
      await client.patch(
        crds,
        { name },
        [
          { op: 'test', path: '/spec/conversion/webhook/clientConfig/url', value: url },
          { op: 'add', path: '/spec/conversion/webhook/clientConfig/caBundle', value: caBundle },
        ],
        { type: 'json' },
      );
      patched.push(`CustomResourceDefinition/${name}: conversion`);
    } catch (err) {
      log.error(err, 'cannot set the conversion caBundle of a CRD', { crd: name });
    }
  }
  return patched;
}
