// The whole example of docs/guides/reacting-to-changes.md, as the page prints it, and the shape these tests expect of
// it: a guide that renames what they use fails them with the name it lost.
import type { Client, Manager, Reconciler, k8s } from '../../src/runtime/index.js';
import type { EventHandler } from '../../src/runtime/controller/index.js';
import { importGuideBlock } from '../support/guide-example.js';

/** The example's request type, as the guide declares it. */
export interface ConfigChange {
  namespace: string;
  name: string;
  change: 'created' | 'updated' | 'deleted';
  keys: string[];
  hash: string;
  initial: boolean;
  stateUnknown: boolean;
}

/** What the tests use of the example's module. */
export interface ReloaderExample {
  WATCH_ANNOTATION: string;
  HASH_ANNOTATION: string;
  REASON_ANNOTATION: string;
  configChanges: EventHandler<k8s.V1ConfigMap, ConfigChange>;
  Reloader: new (client: Client) => Reconciler<ConfigChange>;
  setupReloader(mgr: Manager, reconciler?: Reconciler<ConfigChange>): void;
}

const PAGE = 'guides/reacting-to-changes.md';
const HEADING = '## The whole example: a reloader';

/** Imports the guide's example and checks that it has every export the tests use. */
export async function loadReloaderExample(): Promise<ReloaderExample> {
  const mod = await importGuideBlock<Partial<ReloaderExample>>(PAGE, HEADING, 'reloader.ts');
  for (const name of [
    'WATCH_ANNOTATION',
    'HASH_ANNOTATION',
    'REASON_ANNOTATION',
    'configChanges',
    'Reloader',
    'setupReloader',
  ] as const) {
    if (mod[name] === undefined) throw new Error(`the example of docs/${PAGE} no longer exports ${name}`);
  }
  return mod as ReloaderExample;
}
