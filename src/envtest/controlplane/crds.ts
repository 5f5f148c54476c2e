/**
 * CustomResourceDefinitions for a test environment, as envtest's crd.go handles them: read from
 * YAML/JSON files (multi-document, only kind CustomResourceDefinition), create or update, then wait
 * until discovery lists each CRD's plural for every served version.
 */
import { readFile } from 'node:fs/promises';
import { parseAllDocuments } from 'yaml';
import { createOrReplace, manifestFiles } from './manifests.js';
import type { AdminClient } from './request.js';
import { pollUntil } from './wait.js';

/**
 * A CustomResourceDefinition as the environment installs it: the fields it reads (name, group, names, versions), the
 * rest passed through.
 */
export interface CustomResourceDefinition {
  /** 'apiextensions.k8s.io/v1'. */
  apiVersion?: string;
  /** 'CustomResourceDefinition'. */
  kind?: string;
  /** Its name, `<plural>.<group>`. */
  metadata: { name: string; resourceVersion?: string; [key: string]: unknown };
  /** The group, names and versions (the rest of the spec passed through as written). */
  spec: {
    group: string;
    names: { plural: string; kind: string; [key: string]: unknown };
    versions: Array<{ name: string; served: boolean; storage?: boolean; [key: string]: unknown }>;
    [key: string]: unknown;
  };
  /** As the server reports it; not read when installing. */
  status?: unknown;
}

const CRDS_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** Checks an object is a usable apiextensions.k8s.io/v1 CRD; `source` names it in errors. */
export function asCRD(obj: unknown, source: string): CustomResourceDefinition {
  const o = obj as Partial<CustomResourceDefinition> | null;
  if (!o || typeof o !== 'object') throw new Error(`${source}: not an object`);
  if (o.apiVersion && o.apiVersion !== 'apiextensions.k8s.io/v1') {
    throw new Error(
      `${source}: CustomResourceDefinition ${o.metadata?.name ?? ''} has apiVersion ${o.apiVersion}; only apiextensions.k8s.io/v1 is served`,
    );
  }
  const name = o.metadata?.name;
  const spec = o.spec;
  if (!name || !spec?.group || !spec.names?.plural || !Array.isArray(spec.versions) || spec.versions.length === 0) {
    throw new Error(
      `${source}: CustomResourceDefinition needs metadata.name, spec.group, spec.names.plural and spec.versions`,
    );
  }
  return { ...o, apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' } as CustomResourceDefinition;
}

/** Every CRD in `text` (one or more YAML or JSON documents); other kinds are skipped. */
export function parseCRDs(text: string, source: string): CustomResourceDefinition[] {
  const out: CustomResourceDefinition[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length) throw new Error(`${source}: ${doc.errors[0]?.message ?? 'invalid YAML'}`);
    const obj = doc.toJS() as { kind?: unknown } | null;
    if (obj && typeof obj === 'object' && obj.kind === 'CustomResourceDefinition') out.push(asCRD(obj, source));
  }
  return out;
}

/**
 * Reads CRDs from files and directories (a directory's own .yaml/.yml/.json files, not its subdirectories).
 * A missing path is an error only with `errorIfMissing`, as in envtest.
 */
export async function readCRDs(paths: readonly string[], errorIfMissing: boolean): Promise<CustomResourceDefinition[]> {
  const out: CustomResourceDefinition[] = [];
  for (const p of paths) {
    for (const f of await manifestFiles(p, !errorIfMissing, 'CRDs'))
      out.push(...parseCRDs(await readFile(f, 'utf8'), f));
  }
  return out;
}

/** Creates each CRD, or replaces it if it already exists (retrying on update conflicts). */
export async function installCRDs(client: AdminClient, crds: readonly CustomResourceDefinition[]): Promise<void> {
  for (const crd of crds) {
    const body = { ...crd, metadata: { ...crd.metadata }, status: undefined };
    delete body.metadata.resourceVersion;
    await createOrReplace(client, CRDS_PATH, body, `CRD ${crd.metadata.name}`);
  }
}

/**
 * Waits until each CRD is usable in every served version: discovery lists its plural (envtest's
 * signal), and a LIST succeeds. The second check matters since Kubernetes 1.31: until the new
 * resource's watch cache has initialised, lists and watches get 429 "storage is (re)initializing",
 * which client-go retries transparently but @kubernetes/client-node does not.
 */
export async function waitForCRDs(
  client: AdminClient,
  crds: readonly CustomResourceDefinition[],
  timeoutMs: number,
): Promise<void> {
  const wanted = new Map<string, Set<string>>(); // "group/version" -> plurals
  for (const crd of crds) {
    for (const v of crd.spec.versions) {
      if (!v.served) continue;
      const gv = `${crd.spec.group}/${v.name}`;
      (wanted.get(gv) ?? wanted.set(gv, new Set()).get(gv)!).add(crd.spec.names.plural);
    }
  }
  await Promise.all(
    [...wanted].map(async ([gv, plurals]) => {
      await pollUntil(
        async () => {
          const res = await client.request('GET', `/apis/${gv}`);
          if (res.status !== 200) return false;
          const served = new Set(
            ((res.body as { resources?: Array<{ name: string }> }).resources ?? []).map((r) => r.name),
          );
          return [...plurals].every((p) => served.has(p));
        },
        { what: `discovery to serve ${[...plurals].join(', ')} in ${gv}`, timeoutMs, intervalMs: 100 },
      );
      for (const plural of plurals) {
        await pollUntil(async () => (await client.request('GET', `/apis/${gv}/${plural}`)).status === 200, {
          what: `lists of ${plural}.${gv} to succeed`,
          timeoutMs,
          intervalMs: 100,
        });
      }
    }),
  );
}
