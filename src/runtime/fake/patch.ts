// Applying merge, JSON and strategic patches to a plain JSON copy of the stored object (apply is managed-fields.ts's).
import jsonpatch from 'fast-json-patch';
import { applyMergePatch, isObject, type JSONObject, type JSONValue } from '../json/index.js';
import type { PatchType, Resource } from '../rest/types.js';
import { badRequest, invalid } from './errors.js';

/** The object after `patch` of `type`, or the server's error for a patch that cannot apply. */
export function applyPatch(
  res: Resource,
  name: string,
  current: JSONObject,
  patch: unknown,
  type: Exclude<PatchType, 'apply'>,
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
      // Strategic merge needs each built-in type's merge keys; a merge patch or apply is what controllers send.
      throw badRequest(
        res,
        name,
        'the fake client does not apply strategic merge patches: send a merge patch (mergeFrom) or server-side apply, or test on envtest',
      );
  }
  if (!isObject(out)) throw badRequest(res, name, 'the patch did not leave an object');
  return out;
}
