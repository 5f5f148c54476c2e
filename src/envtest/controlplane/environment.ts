/**
 * TestEnvironment: a real etcd + kube-apiserver for integration tests, started the way
 * controller-runtime's envtest starts them (reference/envtest.md §1).
 *
 * Lifecycle: start() → use kubeConfig → stop(). Everything lives in one temp directory, removed on stop.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubescaffold/runtime/rest';
import { APIServer, CERT_FILES, type APIServerConfig } from './apiserver.js';
import { checkAPIServerFlags } from './apiserver-flags.js';
import type { Binaries } from '../binaries/find.js';
import { generateControlPlaneCerts, type ControlPlaneCerts } from './certs.js';
import { onProcessExit } from './cleanup.js';
import { asCRD, installCRDs, readCRDs, waitForCRDs, type CustomResourceDefinition } from './crds.js';
import { ensureBinaries } from '../binaries/ensure.js';
import { Etcd } from './etcd.js';
import { kubeconfigYaml, toKubeConfig, type AdminCredentials } from './kubeconfig.js';
import { freePort } from './ports.js';
import { AdminClient } from './request.js';
import { pollUntil, ProcessExitedError } from './wait.js';
import { WebhookInstaller, type InstalledWebhookOptions, type WebhookInstallOptions } from './webhooks.js';

/**
 * Options of {@link TestEnvironment.start} (controller-runtime's envtest.Environment fields): CRDs to install,
 * binaries, timeouts, apiserver flags, and webhooks.
 */
export interface TestEnvironmentOptions {
  /** Files or directories of CRD manifests (YAML or JSON) to install before start() resolves. */
  crdDirectoryPaths?: string[];
  /** CRD objects to install, in addition to those read from crdDirectoryPaths. */
  crds?: object[];
  /** Fail when a crdDirectoryPaths entry does not exist. Default false, as in envtest. */
  errorIfCRDPathMissing?: boolean;
  /**
   * Directory holding kube-apiserver and etcd; KUBEBUILDER_ASSETS and TEST_ASSET_* take precedence.
   * Default: the cache, else a download from the envtest release index (never a build: that takes minutes).
   */
  binaryAssetsDirectory?: string;
  /** Copy etcd's and kube-apiserver's output to stderr. Default: KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT=true. */
  attachControlPlaneOutput?: boolean;
  /** Milliseconds allowed for each of: etcd ready, apiserver ready, CRDs served. Default 60000. */
  startTimeout?: number;
  /** Milliseconds to wait after SIGTERM before SIGKILL. Default 20000. */
  stopTimeout?: number;
  /**
   * Extra kube-apiserver flags, overriding the defaults: { 'feature-gates': 'Foo=true' }. The few that envtest needs
   * for itself ({@link RESERVED_APISERVER_FLAGS}: the port, certificates and etcd) are refused with an EnvtestError.
   */
  apiServerFlags?: Record<string, string>;
  /** Install webhook configurations pointing at a webhook server the test runs locally (see webhooks.ts). */
  webhookInstallOptions?: WebhookInstallOptions;
}

/** Attempts at starting the control plane: a freshly probed port can be taken by someone else before we bind it. */
const START_ATTEMPTS = 5;

function isPortConflict(err: unknown): boolean {
  return err instanceof ProcessExitedError && /address already in use|bind: /i.test(err.process.recentOutput());
}

/**
 * A real kube-apiserver and etcd on local ports for integration tests (controller-runtime's envtest.Environment):
 * start() brings them up and installs CRDs and webhook configurations, stop() tears them down.
 * @example
 * A control plane of its own with one CRD, a client for it, and a custom resource created and read back. Tests start
 * one in `beforeAll` and stop it in `afterAll`; the binaries come from `scaffold envtest use`'s cache.
 * ```ts
 * import { TestEnvironment } from '@kubescaffold/envtest';
 * import { defineResource, newClient, type KubeObject } from '@kubescaffold/runtime';
 *
 * interface Captain extends KubeObject {
 *   spec?: { ship?: string };
 * }
 * const Captains = defineResource<Captain>({ group: 'crew.example.com', version: 'v1', kind: 'Captain', plural: 'captains', namespaced: true });
 *
 * const env = await TestEnvironment.start({
 *   crds: [
 *     {
 *       apiVersion: 'apiextensions.k8s.io/v1',
 *       kind: 'CustomResourceDefinition',
 *       metadata: { name: 'captains.crew.example.com' },
 *       spec: {
 *         group: 'crew.example.com',
 *         names: { kind: 'Captain', plural: 'captains', singular: 'captain', listKind: 'CaptainList' },
 *         scope: 'Namespaced',
 *         versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
 *       },
 *     },
 *   ],
 * });
 * const client = newClient(env.kubeConfig);
 * try {
 *   await client.create(Captains, { apiVersion: 'crew.example.com/v1', kind: 'Captain', metadata: { name: 'ahab', namespace: 'default' }, spec: { ship: 'Pequod' } });
 *   const read = await client.get(Captains, { namespace: 'default', name: 'ahab' });
 *   console.log(`${read.metadata?.name} commands the ${read.spec?.ship}`);
 * } finally {
 *   client.close();
 *   await env.stop();
 * }
 * // Output:
 * // ahab commands the Pequod
 * ```
 */
export class TestEnvironment {
  /** The cluster configuration of the admin user (group system:masters), for `newClient(env.kubeConfig)`. */
  readonly kubeConfig: KubeConfig;
  /** https://127.0.0.1:<port> */
  readonly server: string;
  /** The binaries this environment runs, and their Kubernetes version. */
  readonly binaries: Binaries;
  /** This environment's temporary directory (certificates, etcd data); removed by stop(). */
  readonly tempDir: string;
  /** Where the test's webhook server must listen and its certificates, when webhookInstallOptions were given. */
  webhookInstallOptions: InstalledWebhookOptions | undefined;
  /** etcd's client URL, e.g. to inspect what the API server stored (controller-runtime's ControlPlane.Etcd.URL). */
  readonly etcdURL: string;
  /**
   * The API server as started (controller-runtime's ControlPlane.APIServer): its URL, the CA that signed its serving
   * certificate (PEM: what clients trust), the directory of its certificates and keys, and its command-line flags.
   */
  readonly apiServerInfo: {
    readonly url: string;
    readonly caPem: string;
    readonly certDir: string;
    readonly flags: readonly string[];
  };

  private apiServer: APIServer | undefined;
  private stopping: Promise<void> | undefined;
  /** Every CRD installed so far, by name: a restarted apiserver is ready only once they serve again. */
  private readonly crds = new Map<string, CustomResourceDefinition>();

  private constructor(
    binaries: Binaries,
    dir: string,
    private readonly etcd: Etcd,
    apiServer: APIServer,
    private readonly apiServerConfig: APIServerConfig,
    private readonly creds: AdminCredentials,
    private readonly admin: AdminClient,
    private readonly opts: Required<Pick<TestEnvironmentOptions, 'startTimeout' | 'stopTimeout'>>,
    private readonly forgetOnExit: () => void,
  ) {
    this.binaries = binaries;
    this.tempDir = dir;
    this.apiServer = apiServer;
    this.server = creds.server;
    this.kubeConfig = toKubeConfig(creds);
    this.etcdURL = etcd.url;
    this.apiServerInfo = {
      url: creds.server,
      caPem: creds.caPem,
      certDir: apiServerConfig.certDir,
      flags: apiServer.args,
    };
  }

  /** Starts etcd and kube-apiserver, waits until they serve, and installs the CRDs. */
  static async start(options: TestEnvironmentOptions = {}): Promise<TestEnvironment> {
    checkAPIServerFlags(options.apiServerFlags ?? {});
    const startTimeout = options.startTimeout ?? 60_000;
    const stopTimeout = options.stopTimeout ?? 20_000;
    const attachOutput =
      options.attachControlPlaneOutput ?? process.env.KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT === 'true';
    const binaries = await ensureBinaries({ binaryAssetsDirectory: options.binaryAssetsDirectory, build: 'never' });
    // Read CRDs first: a bad manifest should fail before any process starts.
    const crds = [
      ...(await readCRDs(options.crdDirectoryPaths ?? [], options.errorIfCRDPathMissing ?? false)),
      ...(options.crds ?? []).map((c, i) => asCRD(c, `crds[${i}]`)),
    ];

    const dir = await mkdtemp(join(tmpdir(), 'kubescaffold-envtest-'));
    const forgetOnExit = onProcessExit(() => rmSync(dir, { recursive: true, force: true }));
    const started: Array<Etcd | APIServer> = [];
    let admin: AdminClient | undefined;
    try {
      const certDir = join(dir, 'certs');
      const certs = generateControlPlaneCerts();
      await writeCerts(certDir, certs);
      // Webhooks (webhooks.ts): serving certificate and port for the test's webhook server; conversion webhooks on CRDs.
      const webhooks = options.webhookInstallOptions
        ? await WebhookInstaller.prepare(options.webhookInstallOptions, dir)
        : undefined;
      if (webhooks) crds.splice(0, crds.length, ...webhooks.withConversionWebhooks(crds));
      for (let attempt = 1; ; attempt++) {
        const [clientPort, peerPort, port] = [await freePort(), await freePort(), await freePort()];
        const etcdDataDir = join(dir, 'etcd');
        await rm(etcdDataDir, { recursive: true, force: true });
        const creds: AdminCredentials = {
          server: `https://127.0.0.1:${port}`,
          caPem: certs.servingCA,
          certPem: certs.admin.certPem,
          keyPem: certs.admin.keyPem,
        };
        admin = new AdminClient(creds);
        try {
          const etcd = await Etcd.start(
            { binary: binaries.etcd, dataDir: etcdDataDir, clientPort, peerPort, attachOutput, removeOnOrphan: dir },
            startTimeout,
          );
          started.push(etcd);
          const apiConfig: APIServerConfig = {
            binary: binaries.kubeApiserver,
            certDir,
            port,
            etcdURL: etcd.url,
            flags: options.apiServerFlags,
            attachOutput,
          };
          const apiServer = await APIServer.start(apiConfig, admin, startTimeout);
          started.push(apiServer);
          await waitForDefaultNamespace(admin, apiServer, startTimeout);
          await installAndWait(admin, crds, startTimeout);
          await webhooks?.install(admin, startTimeout);
          const env = new TestEnvironment(
            binaries,
            dir,
            etcd,
            apiServer,
            apiConfig,
            creds,
            admin,
            { startTimeout, stopTimeout },
            forgetOnExit,
          );
          env.remember(crds);
          env.webhookInstallOptions = webhooks?.options;
          return env;
        } catch (err) {
          await stopAll(started.splice(0), stopTimeout);
          admin.close();
          if (!isPortConflict(err) || attempt >= START_ATTEMPTS) throw err;
        }
      }
    } catch (err) {
      await stopAll(started, stopTimeout);
      admin?.close();
      await rm(dir, { recursive: true, force: true });
      forgetOnExit();
      throw err;
    }
  }

  /** A kubeconfig file body for the admin user, with embedded certificates. */
  kubeconfigYaml(): string {
    return kubeconfigYaml(this.creds);
  }

  /** Installs CRDs (file/directory paths, or CRD objects) and waits until discovery serves them. */
  async installCRDs(sources: ReadonlyArray<string | object>): Promise<void> {
    const paths = sources.filter((s): s is string => typeof s === 'string');
    const crds: CustomResourceDefinition[] = [
      ...(await readCRDs(paths, true)),
      ...sources.filter((s): s is object => typeof s !== 'string').map((c, i) => asCRD(c, `crds[${i}]`)),
    ];
    await installAndWait(this.admin, crds, this.opts.startTimeout);
    this.remember(crds);
  }

  private remember(crds: readonly CustomResourceDefinition[]): void {
    for (const crd of crds) this.crds.set(crd.metadata.name, crd);
  }

  /** Stops only kube-apiserver (etcd and its data stay), e.g. to test how clients ride out an outage. */
  async stopAPIServer(): Promise<void> {
    const api = this.apiServer;
    this.apiServer = undefined;
    this.admin.close();
    await api?.stop(this.opts.stopTimeout);
  }

  /**
   * Starts kube-apiserver again on the same port, certificates and etcd; a no-op if it is running. `flags` replace the
   * flags of the same names from then on, as an upgrade or a rollback that changes a feature gate would.
   */
  async startAPIServer(opts: { flags?: Record<string, string> } = {}): Promise<void> {
    if (this.stopping) throw new Error('the test environment is stopped');
    if (this.apiServer) return;
    if (opts.flags) {
      checkAPIServerFlags(opts.flags);
      this.apiServerConfig.flags = { ...this.apiServerConfig.flags, ...opts.flags };
    }
    for (let attempt = 1; ; attempt++) {
      try {
        this.apiServer = await APIServer.start(this.apiServerConfig, this.admin, this.opts.startTimeout);
        await waitForCRDs(this.admin, [...this.crds.values()], this.opts.startTimeout);
        return;
      } catch (err) {
        // The port was ours a moment ago; if something grabbed it meanwhile, wait for it to let go.
        if (!isPortConflict(err) || attempt >= START_ATTEMPTS) throw err;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  /**
   * Resolves when etcd or kube-apiserver exits on its own while this environment runs: which one, how, and the last
   * lines it wrote. An exit that stop() or stopAPIServer() asked for does not count, so for an environment that is
   * stopped cleanly it never resolves. A long-running holder of the control plane (`scaffold envtest start`) races it
   * against its stop signal, so that a dead control plane is said at once instead of at the next request.
   */
  async whenProcessExits(): Promise<ControlPlaneExit> {
    for (;;) {
      const api = this.apiServer;
      const exited = await Promise.race([
        this.etcd.process.exited.then(() => ({ component: 'etcd' as const, process: this.etcd.process })),
        ...(api
          ? [api.process.exited.then(() => ({ component: 'kube-apiserver' as const, process: api.process }))]
          : []),
      ]);
      if (this.stopping) return new Promise<never>(() => undefined);
      // kube-apiserver stopped on purpose (stopAPIServer): watch on with what runs now.
      if (exited.component === 'kube-apiserver' && this.apiServer !== api) continue;
      return {
        component: exited.component,
        how: exited.process.describeExit(),
        lastLines: lastLines(exited.process.recentOutput(), 20),
      };
    }
  }

  /** Stops kube-apiserver, then etcd (SIGTERM, SIGKILL after stopTimeout), and removes the temp directory. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      const api = this.apiServer;
      this.apiServer = undefined;
      this.admin.close();
      try {
        await stopAll([this.etcd, ...(api ? [api] : [])], this.opts.stopTimeout);
      } finally {
        await rm(this.tempDir, { recursive: true, force: true });
        this.forgetOnExit();
      }
    })();
    return this.stopping;
  }
}

/** How a control-plane process ended on its own: {@link TestEnvironment.whenProcessExits}. */
export interface ControlPlaneExit {
  /** Which process exited. */
  readonly component: 'etcd' | 'kube-apiserver';
  /** How it exited, e.g. `etcd exited (killed by SIGKILL)` or `kube-apiserver exited (code 1)`. */
  readonly how: string;
  /** The last lines it wrote (up to 20), oldest first. */
  readonly lastLines: readonly string[];
}

function lastLines(output: string, n: number): string[] {
  return output
    .trimEnd()
    .split('\n')
    .slice(-n)
    .filter((l) => l.trim() !== '');
}

/** Stops in reverse start order: the apiserver before the etcd it depends on. */
async function stopAll(started: Array<Etcd | APIServer>, timeoutMs: number): Promise<void> {
  for (const p of [...started].reverse()) await p.stop(timeoutMs);
}

async function writeCerts(certDir: string, certs: ControlPlaneCerts): Promise<void> {
  await mkdir(certDir, { recursive: true, mode: 0o700 });
  const files: Array<[string, string]> = [
    [CERT_FILES.servingCert, certs.serving.certPem],
    [CERT_FILES.servingKey, certs.serving.keyPem],
    [CERT_FILES.clientCA, certs.clientCA],
    [CERT_FILES.saKey, certs.serviceAccount.keyPem],
    [CERT_FILES.saPub, certs.serviceAccount.publicKeyPem],
  ];
  await Promise.all(files.map(([name, text]) => writeFile(join(certDir, name), text, { mode: 0o600 })));
}

/** The bootstrap controller creates `default` shortly after /healthz; envtest waits for it too. */
async function waitForDefaultNamespace(admin: AdminClient, api: APIServer, timeoutMs: number): Promise<void> {
  await pollUntil(
    async () => (await admin.request('GET', '/api/v1/namespaces/default', undefined, 2000)).status === 200,
    {
      what: 'namespace "default"',
      timeoutMs,
      process: api.process,
    },
  );
}

async function installAndWait(
  admin: AdminClient,
  crds: readonly CustomResourceDefinition[],
  timeoutMs: number,
): Promise<void> {
  if (crds.length === 0) return;
  await installCRDs(admin, crds);
  await waitForCRDs(admin, crds, timeoutMs);
}
