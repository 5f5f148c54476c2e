// Our reconcile peer, bundled: the entry point bench/runtime-memory.js bundles with the scaffolded hack/bundle.js
// (see bundledPeer in runtime-lib.js). It imports the runtime statically by package name, as a scaffolded
// cmd/main.ts does, so that esbuild bundles it. The peer itself is bench/runtime-reconcile-peer.js; arguments as for
// bench/runtime-reconcile-child.js.
import * as runtime from '@kubescaffold/runtime';
import * as rest from '@kubescaffold/runtime/rest';
import { runReconcilePeer } from './runtime-reconcile-peer.js';

await runReconcilePeer(async () => ({ ...runtime, ...rest }));
