/*
Copyright 2026 The trust-manager port's authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

import { Manager, configureLog, enableSourceMaps, loadKubeConfig, log, newClient, parseFlagsOrExit, parseLogLevel, parseShardKey, ping, setupSignalHandler, type KubeConfig } from '@kubescaffold/runtime';
import { leaderElectionNamespace } from '@kubescaffold/runtime/manager';
import { operatorFlags } from './flags.js';
import { BundleReconciler } from '../internal/controller/bundle_controller.js';
import { WebhookServer } from '@kubescaffold/runtime/webhook';
import { InformerCache } from '@kubescaffold/runtime/cache';
import { ConfigMaps, Secrets } from '@kubescaffold/runtime/rest';
import { BUNDLE_LABEL_KEY } from '../api/v1alpha1/bundle_types.js';
import { setupBundleWebhookWithManager } from '../internal/webhook/v1alpha1/bundle_webhook.js';
// +kubebuilder:scaffold:imports

// Stack traces name cmd/, api/ and internal/'s TypeScript, from the source maps next to the JavaScript that runs
// (dist/, or the image's bundle); a map is read only when a trace is printed.
enableSourceMaps();
const setupLog = log.withName('setup');

// Flags keep kubebuilder's names and are read as Go's flag package reads them (-leader-elect, --metrics-secure=false,
// --metrics-bind-address :8443), so manifests and habits carry over from Go projects. A flag that is not defined or
// a bad value prints the usage and exits 2; -h prints it. --no-metrics-secure and the like, which earlier scaffolds
// documented, still read as --metrics-secure=false. The operator's own flags are declared in cmd/flags.ts.
const { values: flags } = parseFlagsOrExit(
  {
    'metrics-bind-address': { type: 'string', default: '0', usage: 'The address the metrics endpoint binds to: :8443 for HTTPS, :8080 for HTTP, or 0 to serve no metrics.' },
    'health-probe-bind-address': { type: 'string', default: ':8081', usage: 'The address the probe endpoint binds to.' },
    'leader-elect': { type: 'bool', default: false, usage: 'Enable leader election, so that only one replica of the manager is active at a time.' },
    'shard-ring': { type: 'string', default: '', usage: 'Shard the controllers across every replica started with this ring name, each reconciling its part of the objects (a Lease per replica); empty runs them whole on each replica (on the leader with --leader-elect).' },
    'shard-key': { type: 'value', default: 'uid', parse: parseShardKey, usage: 'With --shard-ring, what places an object: uid (even spread) or namespace (a namespace on one replica).' },
    'lease-namespace': { type: 'string', default: '', usage: "The namespace of the Leases of --leader-elect and --shard-ring (default: the pod's own namespace, in a cluster)." },
    'metrics-secure': { type: 'bool', default: true, usage: 'Serve metrics over HTTPS, to callers allowed by RBAC; --metrics-secure=false serves plain HTTP.' },
    'metrics-cert-path': { type: 'string', default: '', usage: "The directory of the metrics server's certificate; without one the server makes a self-signed certificate." },
    'metrics-cert-name': { type: 'string', default: 'tls.crt', usage: "The file name of the metrics server's certificate." },
    'metrics-cert-key': { type: 'string', default: 'tls.key', usage: "The file name of the metrics server's key." },
    'enable-http2': { type: 'bool', default: false, usage: 'Enable HTTP/2 for the metrics and webhook servers.' },
    'webhook-cert-path': { type: 'string', default: '', usage: "The directory of the webhook server's certificate." },
    'webhook-cert-name': { type: 'string', default: 'tls.crt', usage: "The file name of the webhook server's certificate." },
    'webhook-cert-key': { type: 'string', default: 'tls.key', usage: "The file name of the webhook server's key." },
    'webhook-port': { type: 'int', default: 9443, usage: 'The port the webhook server serves on.' },
    // LOG_LEVEL gives the default (e.g. `LOG_LEVEL=debug make run`); a level that parseLogLevel refuses is refused as
    // any bad flag value is.
    'zap-log-level': { type: 'value', default: process.env.LOG_LEVEL ?? 'info', parse: parseLogLevel, usage: 'The log level: debug, info, error, or a logr verbosity (a number).' },
    // The operator's own flags (cmd/flags.ts), typed in `flags` too (e.g. flags['sync-period']), to hand to its
    // controllers below. One named as a flag above does not compile: Go's flag package refuses a flag defined twice.
    ...operatorFlags,
  },
  process.argv.slice(2),
  { name: 'manager', allowNegative: true },
);
configureLog({ level: flags['zap-log-level'] });

// The Leases of --leader-elect and --shard-ring live in --lease-namespace, else in the pod's own namespace (from its
// service account). Out of a cluster there is none: the manager says which flag to pass and exits 1, before it starts.
let leaseNamespace: string | undefined;
if (flags['leader-elect'] || flags['shard-ring']) {
  try {
    leaseNamespace = leaderElectionNamespace(flags['lease-namespace'] || undefined);
  } catch {
    setupLog.error(new Error("not running in a cluster, where the pod's own namespace is used: pass --lease-namespace=<namespace>, e.g. --lease-namespace=default"), 'unable to find the namespace for the Leases of --leader-elect and --shard-ring');
    process.exit(1);
  }
}

// As ctrl.GetConfigOrDie: without a usable kubeconfig (KUBECONFIG, ~/.kube/config, or the pod's service account) the
// manager says which and exits 1, instead of a stack trace.
let kubeConfig: KubeConfig;
try {
  kubeConfig = loadKubeConfig();
} catch (err) {
  setupLog.error(err, 'unable to get kubeconfig');
  process.exit(1);
}

// trust-manager's two caches (bundle.CacheOpts, SetupWithManager): the manager's holds Bundles, Namespaces, and the
// ConfigMaps and Secrets of the trust namespace only (the sources); a second one holds the metadata of the labelled
// targets in every namespace, managedFields kept for the up-to-date check. --target-namespaces narrows both.
const trustNamespace = flags['trust-namespace'];
const targetNamespaces = flags['target-namespaces'].split(',').map((n) => n.trim()).filter((n) => n !== '');
const cacheNamespaces = targetNamespaces.length > 0 ? [...targetNamespaces, trustNamespace] : undefined;

const mgr = new Manager({
  kubeConfig,
  cache: {
    defaultNamespaces: cacheNamespaces,
    readerFailOnMissingInformer: true,
    byObject: [
      { resource: ConfigMaps, namespaces: [trustNamespace] },
      { resource: Secrets, namespaces: [trustNamespace] },
    ],
  },
  // Metrics are off by default ('0'); config/default serves them on :8443 over HTTPS, and only to callers allowed
  // by RBAC (TokenReview + SubjectAccessReview), as kubebuilder's projects do. --metrics-secure=false serves plain HTTP.
  // Without --metrics-cert-path the server makes a self-signed certificate.
  metrics: {
    bindAddress: flags['metrics-bind-address'],
    secureServing: flags['metrics-secure'],
    certDir: flags['metrics-cert-path'] || undefined,
    certName: flags['metrics-cert-name'],
    keyName: flags['metrics-cert-key'],
    // HTTP/2 stays off unless asked for, to avoid the HTTP/2 Stream Cancellation and Rapid Reset CVEs.
    enableHTTP2: flags['enable-http2'],
  },
  healthProbe: { bindAddress: flags['health-probe-bind-address'] },
  leaderElection: { enabled: flags['leader-elect'], id: 'a63049f7.cert-manager.io', namespace: leaseNamespace },
  // --shard-ring: every replica reconciles its partitions of the objects, listing and watching only those.
  sharding: flags['shard-ring'] ? { ring: flags['shard-ring'], key: flags['shard-key'], namespace: leaseNamespace } : undefined,
  // Webhooks are served on --webhook-port with the certificate in --webhook-cert-path; without one, a CA and serving
  // certificate are generated and the CA is put into the webhook configurations and CRDs that point at this host.
  webhookServer: new WebhookServer({
    port: Number(flags['webhook-port']),
    certDir: flags['webhook-cert-path'] || undefined,
    certName: flags['webhook-cert-name'],
    keyName: flags['webhook-cert-key'],
  }),
  // +kubebuilder:scaffold:manager-options
});

const targetCache = new InformerCache({
  client: newClient(kubeConfig),
  namespaces: targetNamespaces.length > 0 ? targetNamespaces : undefined,
  defaultLabelSelector: BUNDLE_LABEL_KEY,
  readerFailOnMissingInformer: true,
  stripManagedFields: false,
  log: log.withName('target-cache'),
});
mgr.add(targetCache);

new BundleReconciler(
  { client: mgr.getClient(), targetCache, recorder: mgr.getEventRecorder('bundles') },
  {
    namespace: trustNamespace,
    targetNamespaces,
    filterExpiredCerts: flags['filter-expired-certificates'],
    filterNonCACerts: flags['filter-non-ca-certs'],
  },
).setupWithManager(mgr, targetCache);
if (process.env.ENABLE_WEBHOOKS !== 'false') {
  setupBundleWebhookWithManager(mgr);
}
// +kubebuilder:scaffold:builder

mgr.addHealthzCheck('healthz', ping);
mgr.addReadyzCheck('readyz', ping);

setupLog.info('starting manager');
try {
  await mgr.start(setupSignalHandler());
} catch (err) {
  setupLog.error(err, 'problem running manager');
  process.exit(1);
}
