// The reconcile peer as a CommonJS bundle's entry point, for bench/manager-snapshot.js: run as a script it starts the
// peer at once; run by `node --build-snapshot` it only loads the runtime (module evaluation is what the snapshot
// holds) and leaves the peer's start, which reads process.argv and process.env and opens sockets and timers, to the
// deserialized main function. Arguments as for bench/runtime-reconcile-child.js.
import v8 from 'node:v8';
import * as runtime from '@kubescaffold/runtime';
import * as rest from '@kubescaffold/runtime/rest';
import { runReconcilePeer } from './runtime-reconcile-peer.js';

const main = () =>
  runReconcilePeer(async () => ({ ...runtime, ...rest })).catch((err) => {
    console.error(err);
    process.exit(1);
  });

if (v8.startupSnapshot?.isBuildingSnapshot()) v8.startupSnapshot.setDeserializeMainFunction(main);
else main();
