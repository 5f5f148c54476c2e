/**
 * Last-resort cleanup when the test process exits without calling stop(): kill the control-plane
 * process groups and remove temp dirs, synchronously, from an 'exit' handler. (A crash that skips
 * 'exit', such as SIGKILL, is covered by the supervisor in process.ts.)
 */
const actions = new Set<() => void>();
let installed = false;

/** Registers a synchronous cleanup; returns its deregistration. */
export function onProcessExit(action: () => void): () => void {
  if (!installed) {
    installed = true;
    process.on('exit', () => {
      for (const a of [...actions]) {
        try {
          a();
        } catch {
          // best effort: the process is going away
        }
      }
    });
  }
  actions.add(action);
  return () => actions.delete(action);
}
