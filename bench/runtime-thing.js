// The Thing custom resource's coordinates (bench/go/thing is its Go twin), shared by the benchmarks and by the
// reconcile peer, which is also bundled (bench/runtime-reconcile-bundled.js): this module imports nothing.
export const GROUP = 'bench.kubescaffold.dev';
export const VERSION = 'v1';
export const KIND = 'Thing';
export const PLURAL = 'things';
export const THING = { group: GROUP, version: VERSION, kind: KIND, plural: PLURAL, namespaced: true };
export const SENT_ANNOTATION = 'bench.kubescaffold.dev/sent';
