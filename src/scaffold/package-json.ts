// `init` in a directory that already has a package.json (say from `npm init -y`): what the project needs to build
// (module type, engines, scripts, dependencies) is merged into it; the user's other keys stay as they are.
import { isObject } from '@kubescaffold/runtime/json';

/** What `npm init -y` writes that a kubescaffold project replaces: they are defaults, not choices. */
const NPM_INIT_DEFAULTS: Record<string, unknown> = {
  type: 'commonjs',
  'scripts.test': 'echo "Error: no test specified" && exit 1',
};

type Json = Record<string, unknown>;

/**
 * Merges the generated package.json into an existing one. Returns the merged text, or the conflicts: keys the project
 * needs that the existing file sets to something else.
 */
export function mergePackageJson(
  existingText: string,
  generatedText: string,
): { text: string } | { conflicts: string[] } {
  let existing: unknown;
  try {
    existing = JSON.parse(existingText);
  } catch (err) {
    return { conflicts: [`it is not valid JSON (${(err as Error).message})`] };
  }
  if (!isObject(existing)) return { conflicts: ['it does not hold a JSON object'] };
  const generated = JSON.parse(generatedText) as Json;
  const merged: Json = { ...existing };
  const conflicts: string[] = [];
  const take = (key: string, ours: unknown, theirs: unknown, set: (v: unknown) => void): void => {
    if (theirs === undefined || theirs === ours || NPM_INIT_DEFAULTS[key] === theirs) set(ours);
    else conflicts.push(`"${key}" is ${JSON.stringify(theirs)}, the project needs ${JSON.stringify(ours)}`);
  };
  take('type', generated.type, existing.type, (v) => (merged.type = v));
  for (const section of ['engines', 'scripts', 'dependencies', 'devDependencies']) {
    const theirs = isObject(existing[section]) ? existing[section] : {};
    const out: Json = { ...theirs };
    for (const [k, v] of Object.entries(generated[section] as Json))
      take(`${section}.${k}`, v, theirs[k], (x) => (out[k] = x));
    merged[section] = out;
  }
  return conflicts.length > 0 ? { conflicts } : { text: `${JSON.stringify(merged, null, 2)}\n` };
}
