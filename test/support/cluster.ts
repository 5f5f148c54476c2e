/** What a failing integration test shows about the cluster: recent Events, and how one object changed over time. */
import type { RestClient } from '../../src/runtime/rest/index.js';
import { CoreEvents } from '../../src/runtime/rest/index.js';
import type { KubeObject, Resource } from '../../src/runtime/rest/index.js';

/** The namespace's most recent Events, one a line: when, type, reason, object, message. */
export async function recentEvents(client: RestClient, namespace: string, limit = 30): Promise<string> {
  const list = await client.list(CoreEvents, { namespace });
  const when = (e: (typeof list.items)[number]): string =>
    String(e.lastTimestamp ?? e.eventTime ?? e.metadata.creationTimestamp ?? '');
  const lines = list.items
    .sort((a, b) => when(a).localeCompare(when(b)))
    .slice(-limit)
    .map(
      (e) =>
        `${when(e)} ${e.type ?? ''} ${e.reason ?? ''} ${e.involvedObject?.kind ?? ''}/${e.involvedObject?.name ?? ''}: ${e.message ?? ''}`,
    );
  return [`--- last ${lines.length} of ${list.items.length} events in ${namespace} ---`, ...lines].join('\n');
}

/** Every version of one object seen by a watch, with the local time it arrived; stop() ends the watch. */
export interface ObjectHistory<T> {
  readonly versions: Array<{ at: string; type: string; object: T }>;
  /** The versions, one a line, through `summarize`. */
  describe(summarize: (obj: T) => string): string;
  stop(): void;
}

/** Starts recording the changes of the object `name` in `namespace` (a Lease, say). */
export function recordHistory<T extends KubeObject>(
  client: RestClient,
  res: Resource<T>,
  namespace: string,
  name: string,
): ObjectHistory<T> {
  const ac = new AbortController();
  const versions: ObjectHistory<T>['versions'] = [];
  void (async () => {
    try {
      for await (const ev of client.watch(res, {
        namespace,
        fieldSelector: `metadata.name=${name}`,
        signal: ac.signal,
      })) {
        versions.push({ at: new Date().toISOString(), type: ev.type, object: ev.object as T });
      }
    } catch {
      // The history is a diagnostic: a watch that ends early only means less of it.
    }
  })();
  return {
    versions,
    describe: (summarize) =>
      [
        `--- ${versions.length} changes of ${res.kind} ${namespace}/${name} ---`,
        ...versions.map((v) => `${v.at} ${v.type} ${summarize(v.object)}`),
      ].join('\n'),
    stop: () => ac.abort(),
  };
}
