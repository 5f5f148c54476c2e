/**
 * Webhooks for a test environment, as controller-runtime's envtest WebhookInstallOptions: the project's webhook
 * configurations (config/webhook/manifests.yaml) are installed pointing at a webhook server the test runs on this
 * machine, `https://127.0.0.1:<free port><path>`, with the CA of a serving certificate made for it; CRDs with
 * several versions get the same server as their conversion webhook. The test starts its Manager with
 * webhookPort = localServingPort and webhookCertPath = localServingCertDir.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { TinyCA } from '@kubescaffold/runtime/certs';
import type { CustomResourceDefinition } from './crds.js';
import { createOrReplace, manifestFiles } from './manifests.js';
import { freePort } from './ports.js';
import type { AdminClient } from './request.js';
import { pollUntil } from './wait.js';

/** A Mutating- or ValidatingWebhookConfiguration as JSON. */
export interface WebhookConfiguration {
  /** 'admissionregistration.k8s.io/v1'. */
  apiVersion?: string;
  /** 'MutatingWebhookConfiguration' or 'ValidatingWebhookConfiguration'. */
  kind?: string;
  /** Its name (the rest of the metadata passed through). */
  metadata: { name: string; [key: string]: unknown };
  /** The webhooks; the environment points each one's clientConfig at the local webhook server. */
  webhooks?: Array<{ name: string; clientConfig?: WebhookClientConfig; [key: string]: unknown }>;
  [key: string]: unknown;
}

interface WebhookClientConfig {
  url?: string;
  caBundle?: string;
  service?: { name?: string; namespace?: string; path?: string; port?: number };
}

/**
 * Options of the environment's webhook installation (controller-runtime's envtest.WebhookInstallOptions): the
 * configurations to install and where the local webhook server will serve them.
 */
export interface WebhookInstallOptions {
  /** Files or directories of webhook configuration manifests, such as config/webhook/manifests.yaml. */
  paths?: string[];
  /** MutatingWebhookConfigurations to install, in addition to those read from paths. */
  mutatingWebhooks?: WebhookConfiguration[];
  /** ValidatingWebhookConfigurations to install, in addition to those read from paths. */
  validatingWebhooks?: WebhookConfiguration[];
  /** Skip paths that do not exist instead of failing. Default false. */
  ignoreErrorIfPathMissing?: boolean;
  /** The host the API server calls the webhooks on, and the certificate names. Default 127.0.0.1. */
  localServingHost?: string;
  /** The port the webhook server must listen on. Default: a free port. */
  localServingPort?: number;
  /** Where tls.crt and tls.key are written. Default: a directory inside the environment's temp dir. */
  localServingCertDir?: string;
  /**
   * Names of CRDs (`captains.crew.example.com`) whose conversions go to the local webhook server at /convert.
   * Default: every CRD that already asks for a Webhook conversion or serves more than one version.
   */
  conversionCRDs?: string[];
}

/** The options as the environment resolved them: where the test's webhook server must listen, and with what. */
export interface InstalledWebhookOptions extends WebhookInstallOptions {
  /** The host the webhook server must serve on. */
  localServingHost: string;
  /** The port the webhook server must listen on. */
  localServingPort: number;
  /** The directory holding tls.crt and tls.key for the webhook server (its certDir). */
  localServingCertDir: string;
  /** The CA (PEM) that signed the serving certificate; what every caBundle holds. */
  localServingCAData: string;
  /** The MutatingWebhookConfigurations installed, as rewritten to point at the local server. */
  mutatingWebhooks: WebhookConfiguration[];
  /** The ValidatingWebhookConfigurations installed, as rewritten to point at the local server. */
  validatingWebhooks: WebhookConfiguration[];
}

const PATHS = {
  MutatingWebhookConfiguration: '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations',
  ValidatingWebhookConfiguration: '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
} as const;

/** Reads the webhook configurations in files and directories (a directory's own manifests); other kinds are skipped. */
export async function readWebhookConfigurations(
  paths: readonly string[],
  ignoreMissing: boolean,
): Promise<{ mutating: WebhookConfiguration[]; validating: WebhookConfiguration[] }> {
  const out = { mutating: [] as WebhookConfiguration[], validating: [] as WebhookConfiguration[] };
  for (const p of paths) {
    const files = await manifestFiles(p, ignoreMissing, 'webhook configurations');
    for (const f of files) {
      for (const doc of parseAllDocuments(await readFile(f, 'utf8'))) {
        if (doc.errors.length) throw new Error(`${f}: ${doc.errors[0]?.message ?? 'invalid YAML'}`);
        const obj = doc.toJS() as WebhookConfiguration | null;
        if (!obj || typeof obj !== 'object') continue;
        if (obj.kind === 'MutatingWebhookConfiguration') out.mutating.push(checked(obj, f));
        else if (obj.kind === 'ValidatingWebhookConfiguration') out.validating.push(checked(obj, f));
      }
    }
  }
  return out;
}

function checked(cfg: WebhookConfiguration, source: string): WebhookConfiguration {
  if (cfg.apiVersion !== 'admissionregistration.k8s.io/v1') {
    throw new Error(
      `${source}: ${cfg.kind} ${cfg.metadata?.name ?? ''} has apiVersion ${cfg.apiVersion}; only admissionregistration.k8s.io/v1 is served`,
    );
  }
  if (!cfg.metadata?.name) throw new Error(`${source}: ${cfg.kind} needs metadata.name`);
  return cfg;
}

function hostPort(host: string, port: number): string {
  return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}

/** A copy of `cfg` whose Service-addressed webhooks call `base` + their path instead, and all trust `caBundle`. */
function pointAtLocalServer(cfg: WebhookConfiguration, base: string, caBundle: string): WebhookConfiguration {
  const copy = structuredClone(cfg);
  for (const w of copy.webhooks ?? []) {
    const cc: WebhookClientConfig = w.clientConfig ?? {};
    if (cc.service) {
      const path = cc.service.path ?? '';
      cc.url = `${base}${path.startsWith('/') || path === '' ? '' : '/'}${path}`;
      delete cc.service;
    }
    cc.caBundle = caBundle;
    w.clientConfig = cc;
  }
  delete copy.metadata.resourceVersion;
  delete copy.status;
  return copy;
}

/** Prepared webhook installation: certificates written, port chosen, configurations rewritten. */
export class WebhookInstaller {
  private constructor(
    readonly options: InstalledWebhookOptions,
    private readonly conversionCRDs: ReadonlySet<string> | undefined,
  ) {}

  /** Reads the manifests, picks the port, writes the serving certificate into localServingCertDir (or under `tempDir`). */
  static async prepare(opts: WebhookInstallOptions, tempDir: string): Promise<WebhookInstaller> {
    const read = await readWebhookConfigurations(opts.paths ?? [], opts.ignoreErrorIfPathMissing ?? false);
    const host = opts.localServingHost ?? '127.0.0.1';
    const port = opts.localServingPort ?? (await freePort());
    const certDir = opts.localServingCertDir ?? join(tempDir, 'webhook-serving-certs');
    const ca = TinyCA.create({ commonName: 'envtest-webhook-ca', organizations: ['envtest'] });
    const names = [...new Set(['localhost', '127.0.0.1', host])];
    const serving = ca.issue({
      commonName: 'localhost',
      dnsNames: names.filter((n) => isIP(n) === 0),
      ipAddresses: names.filter((n) => isIP(n) !== 0),
      usage: 'server',
    });
    await mkdir(certDir, { recursive: true, mode: 0o700 });
    await Promise.all([
      writeFile(join(certDir, 'tls.crt'), serving.certPem, { mode: 0o600 }),
      writeFile(join(certDir, 'tls.key'), serving.keyPem, { mode: 0o600 }),
    ]);
    const caBundle = Buffer.from(ca.certPem).toString('base64');
    const base = `https://${hostPort(host, port)}`;
    const options: InstalledWebhookOptions = {
      ...opts,
      localServingHost: host,
      localServingPort: port,
      localServingCertDir: certDir,
      localServingCAData: ca.certPem,
      mutatingWebhooks: [...read.mutating, ...(opts.mutatingWebhooks ?? [])].map((c) =>
        pointAtLocalServer(
          { ...c, apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration' },
          base,
          caBundle,
        ),
      ),
      validatingWebhooks: [...read.validating, ...(opts.validatingWebhooks ?? [])].map((c) =>
        pointAtLocalServer(
          { ...c, apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration' },
          base,
          caBundle,
        ),
      ),
    };
    return new WebhookInstaller(options, opts.conversionCRDs ? new Set(opts.conversionCRDs) : undefined);
  }

  private wantsConversion(crd: CustomResourceDefinition): boolean {
    if (this.conversionCRDs) return this.conversionCRDs.has(crd.metadata.name);
    const strategy = (crd.spec.conversion as { strategy?: string } | undefined)?.strategy;
    return strategy === 'Webhook' || (strategy === undefined && crd.spec.versions.filter((v) => v.served).length > 1);
  }

  /** The CRDs, those that convert by webhook copied with their conversion pointed at the local server's /convert. */
  withConversionWebhooks(crds: readonly CustomResourceDefinition[]): CustomResourceDefinition[] {
    const { localServingHost: host, localServingPort: port, localServingCAData: ca } = this.options;
    const clientConfig = {
      url: `https://${hostPort(host, port)}/convert`,
      caBundle: Buffer.from(ca).toString('base64'),
    };
    return crds.map((crd) => {
      if (!this.wantsConversion(crd)) return crd;
      return {
        ...crd,
        spec: {
          ...crd.spec,
          conversion: {
            strategy: 'Webhook',
            webhook: {
              clientConfig: { ...clientConfig },
              conversionReviewVersions: ['v1', 'v1beta1'],
            },
          },
        },
      };
    });
  }

  /** Creates (or replaces) the webhook configurations, then waits until the API server returns each. */
  async install(admin: AdminClient, timeoutMs: number): Promise<void> {
    const all = [...this.options.mutatingWebhooks, ...this.options.validatingWebhooks];
    for (const cfg of all)
      await createOrReplace(admin, PATHS[cfg.kind as keyof typeof PATHS], cfg, `${cfg.kind} ${cfg.metadata.name}`);
    await Promise.all(
      all.map((cfg) =>
        pollUntil(
          async () =>
            (await admin.request('GET', `${PATHS[cfg.kind as keyof typeof PATHS]}/${cfg.metadata.name}`)).status ===
            200,
          {
            what: `${cfg.kind} ${cfg.metadata.name}`,
            timeoutMs,
            intervalMs: 100,
          },
        ),
      ),
    );
  }
}
