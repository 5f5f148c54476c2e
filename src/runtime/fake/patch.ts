// Applying merge, JSON and strategic patches to a plain JSON copy of the stored object (apply is managed-fields.ts's).
import jsonpatch from 'fast-json-patch';
import { applyMergePatch, isObject, type JSONObject, type JSONValue } from '../json/index.js';
import type { PatchType, Resource } from '../rest/types.js';
import { badRequest, invalid, strategicMergeFailed, unsupportedPatchType } from './errors.js';
import { builtinPatchSchema, isBuiltinGroup } from './patch-schema.js';
import { MAP_FIELDS } from './patch-strategies.js';
import { StrategicMergeError, strategicMerge } from './strategic-merge.js';

/**
 * The object after `patch` of `type`, or the server's error for a patch that cannot apply. A strategic merge follows
 * the schema of `schemaKind` (the object's own kind, or autoscaling/v1 Scale for the scale subresource).
 */
export function applyPatch(
  res: Resource,
  name: string,
  current: JSONObject,
  patch: unknown,
  type: Exclude<PatchType, 'apply'>,
  schemaKind: { apiVersion: string; kind: string } = res,
): JSONObject {
  let out: JSONValue;
  switch (type) {
    case 'merge':
      if (!isObject(patch)) throw badRequest(res, name, 'a merge patch must be a JSON object');
      out = applyMergePatch(current, patch);
      break;
    case 'json':
      if (!Array.isArray(patch)) throw badRequest(res, name, 'a JSON patch must be an array of operations');
      try {
        out = jsonpatch.applyPatch(structuredClone(current), patch as jsonpatch.Operation[], true, false)
          .newDocument as JSONValue;
      } catch (err) {
        const op = err instanceof jsonpatch.JsonPatchError ? err.operation : undefined;
        throw invalid(
          res,
          name,
          op ? `patch ${JSON.stringify(op)}` : 'patch',
          err instanceof Error ? err.message.split('\n')[0]! : String(err),
        );
      }
      break;
    case 'strategic':
      out = strategicPatch(res, name, current, patch, schemaKind);
      break;
  }
  if (!isObject(out)) throw badRequest(res, name, 'the patch did not leave an object');
  return out;
}

// A strategic merge by the kind's patch strategies; custom resources have none, and the server refuses it with 415.
function strategicPatch(
  res: Resource,
  name: string,
  current: JSONObject,
  patch: unknown,
  schemaKind: { apiVersion: string; kind: string },
): JSONValue {
  if (!isBuiltinGroup(res.group)) throw unsupportedPatchType();
  if (!isObject(patch)) throw badRequest(res, name, 'a strategic merge patch must be a JSON object');
  try {
    return asStored(strategicMerge(current, patch, builtinPatchSchema(schemaKind.apiVersion, schemaKind.kind)));
  } catch (err) {
    if (err instanceof StrategicMergeError) throw strategicMergeFailed(err.failure, err.message);
    throw err;
  }
}

// The server decodes the merged map into the kind's Go struct and stores it, which drops what no field holds
// (directives a replaced value carried: $patch, $retainKeys, ...; nulls) and empty lists and maps (stored as none).
// Only names that are a map wherever they appear count as maps: an empty struct ({}) stays.
function asStored(v: JSONValue): JSONValue {
  if (Array.isArray(v)) return v.map(asStored);
  if (!isObject(v)) return v;
  const out: JSONObject = {};
  for (const [k, x] of Object.entries(v)) {
    if (k.startsWith('$') || x === null) continue;
    if (Array.isArray(x) && x.length === 0) continue;
    if (isObject(x) && MAP_FIELDS.has(k) && Object.keys(x).length === 0) continue;
    out[k] = asStored(x);
  }
  return out;
}
