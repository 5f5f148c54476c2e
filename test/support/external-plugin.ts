/**
 * The external plugin written for the tests (test/fixtures/external-plugin/teamlabels.mjs), installed as kubebuilder
 * finds plugins: <root>/teamlabels/v1/teamlabels, an executable. The executable is a shell script that runs the
 * fixture with this Node, so that no `node` on PATH is needed.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from './files.js';

/** The plugin's key, as --plugins and PROJECT's layout name it. */
export const TEAMLABELS_KEY = 'teamlabels/v1';

const script = fileURLToPath(new URL('../fixtures/external-plugin/teamlabels.mjs', import.meta.url));

/** A plugins root (the value for EXTERNAL_PLUGINS_PATH) holding teamlabels/v1; remove() deletes it. */
export function installTeamlabels(): { root: string; executable: string; remove: () => void } {
  const dir = tempDir('ks-external-plugins-');
  const folder = join(dir.path, 'teamlabels', 'v1');
  mkdirSync(folder, { recursive: true });
  const executable = join(folder, 'teamlabels');
  writeFileSync(executable, `#!/bin/sh\nexec '${process.execPath}' '${script}' "$@"\n`);
  chmodSync(executable, 0o755);
  return { root: dir.path, executable, remove: dir.remove };
}
