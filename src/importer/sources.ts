/**
 * Where `scaffold import crd` reads CRDs from: a YAML (or JSON) file, a folder of them, an https URL, or the name of a
 * CRD installed in the cluster of the kubeconfig. Every document is read with the YAML bounds (src/yaml/read.ts) and
 * checked to be an apiextensions.k8s.io/v1 CRD with a schema for each version; problems name the file and line.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { isObject } from '@kubescaffold/runtime/json';
import { isMap, isScalar, type Document } from 'yaml';
import { isUserError, ScaffoldError } from '../errors.js';
import { resolveInProject } from '../files/confine.js';
import { decodeUtf8 } from '../files/utf8.js';
import type { CustomResourceDefinition } from '../markers/apiextensions.js';
import { readYamlDocuments, YAML_LIMITS } from '../yaml/read.js';
import type { SourcedCRD } from './crd-to-types.js';
import { schemaShapeProblem } from './schema-shape.js';

/** How to reach the cluster for a source that names an installed CRD. */
export interface ClusterAccess {
  kubeconfig?: string;
  context?: string;
}

const CRD_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/;
const MAX_REDIRECTS = 5;
const FETCH_TIMEOUT_MS = 30_000;

/** Reads every source; throws ScaffoldError naming each problem, before anything is written. */
export async function readSources(
  root: string,
  sources: readonly string[],
  cluster: ClusterAccess,
): Promise<SourcedCRD[]> {
  const out: SourcedCRD[] = [];
  const problems: string[] = [];
  for (const source of sources) {
    try {
      out.push(...(await readSource(root, source, cluster, problems)));
    } catch (err) {
      if (!isUserError(err)) throw err;
      problems.push(err.message);
    }
  }
  if (problems.length > 0) throw new ScaffoldError(problems.join('\n'));
  const seen = new Map<string, string>();
  for (const c of out) {
    const name = c.crd.metadata.name;
    const first = seen.get(name);
    if (first !== undefined) problems.push(`${c.origin}: the CRD ${name} is also in ${first}; import each CRD once`);
    seen.set(name, c.origin);
  }
  if (problems.length > 0) throw new ScaffoldError(problems.join('\n'));
  return out;
}

async function readSource(
  root: string,
  source: string,
  cluster: ClusterAccess,
  problems: string[],
): Promise<SourcedCRD[]> {
  if (/^https:\/\//i.test(source)) return fromText(await fetchText(source), source, problems, true);
  if (/^[a-z]+:\/\//i.test(source))
    throw new ScaffoldError(`${source}: only https URLs can be read; download the file, or serve it over https`);
  const path = resolveInProject(root, source, 'read', 'allow');
  if (existsSync(path)) {
    if (statSync(path).isDirectory()) return fromFolder(path, source, problems);
    return fromText(readText(path, source), source, problems, true);
  }
  // a CRD's group has a dot, so its name (<plural>.<group>) has two at least; a YAML file name is a missing file
  if (CRD_NAME.test(source) && source.split('.').length >= 3 && !/\.(ya?ml|json)$/i.test(source))
    return [await fromCluster(source, cluster)];
  throw new ScaffoldError(
    `${source} is neither a file, a folder, an https URL nor the name of a CRD (<plural>.<group>); check the path`,
  );
}

function readText(path: string, shown: string): string {
  const size = statSync(path).size;
  if (size > YAML_LIMITS.maxChars * 4)
    throw new ScaffoldError(
      `${shown} is larger than ${YAML_LIMITS.maxChars / 1024 / 1024} MiB; scaffold does not read YAML files that large`,
    );
  return decodeUtf8(readFileSync(path), shown);
}

/** The CRDs of the folder's .yaml, .yml and .json files (not its subfolders); other documents are skipped. */
function fromFolder(dir: string, shown: string, problems: string[]): SourcedCRD[] {
  const files = readdirSync(dir, { withFileTypes: true })
    .filter((e) => (e.isFile() || e.isSymbolicLink()) && /\.(ya?ml|json)$/i.test(e.name))
    .map((e) => e.name)
    .sort();
  const out: SourcedCRD[] = [];
  for (const f of files) {
    // links inside the folder must stay in it
    const path = resolveInProject(dir, f, 'read');
    if (!statSync(path).isFile()) continue;
    const display = join(shown, f);
    out.push(...fromText(readText(path, display), display, problems, false));
  }
  if (out.length === 0 && problems.length === 0)
    throw new ScaffoldError(`${shown} holds no CustomResourceDefinition in its .yaml, .yml or .json files`);
  return out;
}

/** The CRDs of one YAML stream; `required`: a stream without any is a problem (a file named on its own). */
function fromText(text: string, origin: string, problems: string[], required: boolean): SourcedCRD[] {
  const docs = readYamlDocuments(text, origin);
  const out: SourcedCRD[] = [];
  for (const { document, data } of docs) {
    if (data === null || data === undefined) continue;
    const lineOf = lineFinder(document, text);
    if (!isObject(data) || data.kind !== 'CustomResourceDefinition') continue;
    const problem = crdProblem(data);
    if (problem) {
      problems.push(`${origin}:${lineOf(problem.path) ?? 1}: ${problem.message}`);
      continue;
    }
    out.push({ crd: data as unknown as CustomResourceDefinition, origin, lineOf });
  }
  if (out.length === 0 && required && problems.length === 0)
    throw new ScaffoldError(
      `${origin} holds no CustomResourceDefinition (a document with kind: CustomResourceDefinition)`,
    );
  return out;
}

/** What makes the document unusable as a CRD, and where. */
function crdProblem(data: Record<string, unknown>): { path: (string | number)[]; message: string } | undefined {
  if (data.apiVersion !== 'apiextensions.k8s.io/v1')
    return {
      path: ['apiVersion'],
      message: `apiVersion ${JSON.stringify(data.apiVersion)} is not apiextensions.k8s.io/v1; convert the CRD to v1 (kubectl convert, or install it and read it back by name)`,
    };
  const meta = data.metadata;
  if (!isObject(meta) || typeof meta.name !== 'string')
    return { path: ['metadata'], message: 'the CRD has no metadata.name' };
  const spec = data.spec;
  if (!isObject(spec)) return { path: ['spec'], message: 'the CRD has no spec' };
  if (typeof spec.group !== 'string' || spec.group === '')
    return { path: ['spec', 'group'], message: 'spec.group must be a non-empty string' };
  const names = spec.names;
  if (!isObject(names) || typeof names.kind !== 'string' || typeof names.plural !== 'string')
    return { path: ['spec', 'names'], message: 'spec.names must give kind and plural' };
  if (!/^[A-Z][A-Za-z0-9]*$/.test(names.kind))
    return {
      path: ['spec', 'names', 'kind'],
      message: `kind ${JSON.stringify(names.kind)} is not a TypeScript-friendly Kind name (PascalCase letters and digits)`,
    };
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster')
    return { path: ['spec', 'scope'], message: 'spec.scope must be Namespaced or Cluster' };
  const versions = spec.versions;
  if (!Array.isArray(versions) || versions.length === 0)
    return { path: ['spec', 'versions'], message: 'spec.versions must list at least one version' };
  for (let i = 0; i < versions.length; i++) {
    const v: unknown = versions[i];
    if (!isObject(v) || typeof v.name !== 'string' || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(v.name))
      return { path: ['spec', 'versions', i], message: 'each version needs a name that is a DNS label, like v1' };
    const schema = isObject(v.schema) ? v.schema.openAPIV3Schema : undefined;
    if (!isObject(schema))
      return {
        path: ['spec', 'versions', i],
        message: `version ${v.name} has no schema.openAPIV3Schema; the types are made from it`,
      };
    if (typeof v.served !== 'boolean' || typeof v.storage !== 'boolean')
      return {
        path: ['spec', 'versions', i],
        message: `version ${v.name} must say served and storage (true or false)`,
      };
    const shape = schemaShapeProblem(schema, ['spec', 'versions', i, 'schema', 'openAPIV3Schema']);
    if (shape) return { path: shape.path, message: `version ${v.name}: ${shape.message}` };
    for (const k of ['subresources', 'additionalPrinterColumns', 'selectableFields'] as const)
      if (k in v && (k === 'subresources' ? !isObject(v[k]) : !Array.isArray(v[k])))
        return { path: ['spec', 'versions', i, k], message: `${k} of version ${v.name} is malformed` };
  }
  return undefined;
}

/** The line of a path in the document, or of its nearest ancestor that is there. */
function lineFinder(document: Document.Parsed, text: string): (path: (string | number)[]) => number | undefined {
  let starts: number[] | undefined;
  return (path) => {
    for (let n = path.length; n >= 0; n--) {
      const offset = keyOffset(document, path.slice(0, n));
      if (offset === undefined) continue;
      starts ??= [...text.matchAll(/\n/g)].map((m) => m.index + 1);
      let line = 1;
      for (const s of starts) if (s <= offset) line++;
      return line;
    }
    return undefined;
  };
}

/** Where the node at `path` starts: its key, when it is a mapping's value (a problem is about the key's line). */
function keyOffset(document: Document.Parsed, path: (string | number)[]): number | undefined {
  if (path.length > 0) {
    const parent = document.getIn(path.slice(0, -1), true);
    if (isMap(parent)) {
      const pair = parent.items.find((p) => isScalar(p.key) && p.key.value === path[path.length - 1]);
      const range = (pair?.key as { range?: [number, number, number] } | undefined)?.range;
      if (range) return range[0];
    }
  }
  const node = document.getIn(path, true) as { range?: [number, number, number] } | undefined;
  return node?.range?.[0];
}

/** GETs an https URL (following a few https redirects), bounded in size and time. */
function fetchText(url: string, redirects = 0): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const req = httpsRequest(
      url,
      { method: 'GET', timeout: FETCH_TIMEOUT_MS, headers: { accept: 'application/yaml, text/yaml, */*' } },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400 && res.headers.location) {
          res.resume();
          const next = new URL(res.headers.location, url).toString();
          if (!next.startsWith('https://'))
            return reject(new ScaffoldError(`${url} redirects to ${next}, which is not https`));
          if (redirects >= MAX_REDIRECTS)
            return reject(new ScaffoldError(`${url} redirects more than ${MAX_REDIRECTS} times`));
          fetchText(next, redirects + 1).then(resolvePromise, reject);
          return;
        }
        if (status !== 200) {
          res.resume();
          return reject(
            new ScaffoldError(`${url} answered ${status} ${res.statusMessage ?? ''}; check the URL`.trimEnd()),
          );
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > YAML_LIMITS.maxChars * 4) {
            req.destroy();
            reject(
              new ScaffoldError(
                `${url} is larger than ${YAML_LIMITS.maxChars / 1024 / 1024} MiB; scaffold does not read YAML files that large`,
              ),
            );
            return;
          }
          chunks.push(c);
        });
        res.on('end', () => {
          try {
            resolvePromise(decodeUtf8(Buffer.concat(chunks), url));
          } catch (err) {
            reject(err);
          }
        });
        res.on('error', (err) => reject(new ScaffoldError(`${url} could not be read: ${err.message}`)));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer in ${FETCH_TIMEOUT_MS / 1000} s`)));
    req.on('error', (err) => reject(new ScaffoldError(`${url} could not be fetched: ${err.message}`)));
    req.end();
  });
}

/**
 * A CRD as its author wrote it, from the one the API server serves: without the fields the server keeps of every
 * object (uid, resourceVersion, managedFields, status, ...) and the conversion it defaults (strategy None), which the
 * import would otherwise have to give back.
 */
function withoutServerFields(crd: Record<string, unknown>): void {
  const meta = (crd.metadata ?? {}) as Record<string, unknown>;
  crd.metadata = Object.fromEntries(
    Object.entries(meta).filter(([k]) => ['name', 'annotations', 'labels'].includes(k)),
  );
  delete crd.status;
  const spec = crd.spec as Record<string, unknown> | undefined;
  const conversion = spec?.conversion as Record<string, unknown> | undefined;
  if (conversion && Object.keys(conversion).length === 1 && conversion.strategy === 'None') delete spec!.conversion;
}

/** A CRD installed in the cluster, by name. */
async function fromCluster(name: string, access: ClusterAccess): Promise<SourcedCRD> {
  const { connect, explainConnectionError } = await import('../cluster/connect.js');
  const { ClusterError } = await import('../cluster/errors.js');
  let cluster;
  try {
    cluster = await connect(access);
  } catch (err) {
    if (err instanceof ClusterError) throw new ScaffoldError(`${name}: ${err.message}`);
    throw err;
  }
  try {
    const crd = await cluster.client.transport.requestJson<Record<string, unknown>>({
      method: 'GET',
      path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`,
    });
    crd.apiVersion ??= 'apiextensions.k8s.io/v1';
    crd.kind ??= 'CustomResourceDefinition';
    withoutServerFields(crd);
    const origin = `crd/${name} (${cluster.context})`;
    const problem = crdProblem(crd);
    if (problem) throw new ScaffoldError(`${origin}: ${problem.message}`);
    return { crd: crd as unknown as CustomResourceDefinition, origin, lineOf: () => undefined };
  } catch (err) {
    if (err instanceof ScaffoldError) throw err;
    const code = (err as { code?: number }).code;
    if (code === 404)
      throw new ScaffoldError(
        `${name} is not a file here, and the cluster at ${cluster.server} (context "${cluster.context}") has no CRD of that name; list them with kubectl get crd`,
      );
    throw new ScaffoldError(`${name}: ${explainConnectionError(err, cluster.server, cluster.context)}`);
  } finally {
    cluster.close();
  }
}
