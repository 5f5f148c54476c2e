// Our reconcile peer, unbundled: the runtime loaded from its build (src/runtime/dist, or KUBESCAFFOLD_DIST) as an
// image holding node_modules runs it. The peer itself is bench/runtime-reconcile-peer.js.
//   node --expose-gc bench/runtime-reconcile-child.js <kubeconfig> <namespace> <token> <expect> <workers> [deployed]
import { importRuntime } from './runtime-dist.js';
import { runReconcilePeer } from './runtime-reconcile-peer.js';

await runReconcilePeer(() => importRuntime('rest'));
