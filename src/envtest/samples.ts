import { readFileSync } from 'node:fs';
import type { Client, KubeObject, ObjectMeta, Resource } from '@kubescaffold/runtime';
import { isObject } from '@kubescaffold/runtime/json';
import { isInvalid, type ApiError } from '@kubescaffold/runtime/rest';
import { parseAllDocuments } from 'yaml';
import { EnvtestError } from './errors.js';

/**
 * The object of a sample manifest (a scaffolded project's `config/samples/<group>_<version>_<kind>.yaml`), for a
 * test to create. Tests build their objects from the samples, which `kubectl apply -k config/samples` needs valid
 * anyway, so that a field added to the spec is written in one place. `metadata` replaces the sample's name and
 * namespace (its labels stay).
 *
 * @throws EnvtestError when the file cannot be read, is not one YAML object, or holds another kind than `resource`.
 */
export function readSample<T extends KubeObject>(
  resource: Resource<T>,
  path: string,
  metadata: Partial<ObjectMeta> = {},
): T {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new EnvtestError(`cannot read the sample ${path}: ${(err as Error).message}`, { cause: err });
  }
  const docs = parseAllDocuments(text).filter((d) => d.contents !== null);
  const [doc] = docs;
  if (docs.length !== 1 || !doc || doc.errors.length > 0)
    throw new EnvtestError(`${path}: ${doc?.errors[0]?.message ?? `expected one object, found ${docs.length}`}`);
  const obj: unknown = doc.toJS();
  if (!isObject(obj)) throw new EnvtestError(`${path}: expected a ${resource.kind} object`);
  const { apiVersion, kind } = obj as Partial<KubeObject>;
  if (apiVersion !== resource.apiVersion || kind !== resource.kind)
    throw new EnvtestError(
      `${path} holds a ${String(kind)} of ${String(apiVersion)}, not a ${resource.kind} of ${resource.apiVersion}`,
    );
  const sample = obj as unknown as T;
  return { ...sample, metadata: { ...sample.metadata, ...metadata } };
}

/**
 * Creates the object of a sample manifest (see {@link readSample}). When the API server rejects it as invalid, as a
 * required field the sample lacks, the error names the sample to edit and the field, not just the object the test
 * made.
 */
export async function createSample<T extends KubeObject>(
  client: Pick<Client, 'create'>,
  resource: Resource<T>,
  path: string,
  metadata: Partial<ObjectMeta> = {},
): Promise<T> {
  try {
    return await client.create(resource, readSample(resource, path, metadata));
  } catch (err) {
    if (!isInvalid(err)) throw err;
    const causes = (err as ApiError).status.details?.causes ?? [];
    const fields = causes.map((c) => `${c.field ?? ''}: ${c.message ?? c.reason ?? ''}`);
    const why = fields.length > 0 ? fields.join('; ') : (err as Error).message;
    throw new EnvtestError(`${path} is not a valid ${resource.kind}: ${why}. Edit the sample: the tests create it`, {
      cause: err,
    });
  }
}
