import { stringify } from 'yaml';
import { ScaffoldError } from '../../../errors.js';

const MANAGER_YAML = 'config/manager/manager.yaml';

/**
 * Adds `<KIND>_IMAGE: <image>` to the env of the manager container in config/manager/manager.yaml, as kubebuilder's
 * deploy-image does (first in the list; an `env:` key is added under `name: manager` when there is none). Scaffolding
 * the same Kind again sets the variable's value instead of adding it twice. A text edit keeps the file's comments.
 */
export function addImageEnvVar(content: string, envVar: string, image: string): string {
  const lines = content.split('\n');
  const value = stringify(image).trim();
  const existing = lines.findIndex((l) => new RegExp(`^\\s*- name: ${envVar}\\s*$`).test(l));
  if (existing >= 0) {
    const valueLine = lines[existing + 1];
    const match = valueLine === undefined ? null : /^(\s*)value:/.exec(valueLine);
    if (!match)
      throw new ScaffoldError(
        `${MANAGER_YAML}: the ${envVar} env var has no value line below its name; set it to ${image} by hand or remove it`,
      );
    lines[existing + 1] = `${match[1]}value: ${value}`;
    return lines.join('\n');
  }
  const managerName = lines.findIndex((l) => /^\s*(- )?name: manager\s*$/.test(l));
  if (managerName < 0) {
    throw new ScaffoldError(
      `${MANAGER_YAML} has no container named manager; the controller reads the operand image from ${envVar}: restore the manager container from \`scaffold init\``,
    );
  }
  // The manager container's keys share the indentation of its `name:` key (after the list dash, when it has one).
  const nameLine = lines[managerName]!;
  const indent = ' '.repeat(nameLine.indexOf('name:'));
  const entry = [`${indent}- name: ${envVar}`, `${indent}  value: ${value}`];
  const envLine = lines.findIndex(
    (l, i) => l === `${indent}env:` && isInContainer(lines, i, managerName, indent.length),
  );
  if (envLine >= 0) lines.splice(envLine + 1, 0, ...entry);
  else lines.splice(managerName + 1, 0, `${indent}env:`, ...entry);
  return lines.join('\n');
}

function leading(line: string): number {
  return line.length - line.trimStart().length;
}

/** Whether the key at `index` belongs to the same container as its `name: manager` line (no other list item between). */
function isInContainer(lines: string[], index: number, managerName: number, indent: number): boolean {
  const [from, to] = index < managerName ? [index, managerName] : [managerName, index];
  for (let i = from + 1; i <= to; i++) {
    const l = lines[i]!;
    if (l.trim() === '' || l.trim().startsWith('#')) continue;
    if (leading(l) < indent) return false;
  }
  return true;
}
