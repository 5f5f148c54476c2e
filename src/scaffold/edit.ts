import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ScaffoldError } from '../errors.js';
import { boilerplateText, licenses, ownerProblem, type License, CUSTOM_LICENSE } from '../project/boilerplate.js';
import { loadProject } from '../project/load.js';
import { Plan } from './plan.js';
import { NAMESPACED_WEBHOOKS_WARNING, stringifyProject, type ProjectConfig } from '../project/project.js';
import { render } from './render.js';

export interface EditOptions {
  multigroup?: boolean;
  namespaced?: boolean;
  license?: string;
  owner?: string;
}

export interface EditResult {
  written: string[];
  /** Manual steps the user still has to take (existing code is never rewritten). */
  notes: string[];
}

const watchNamespaceEntry = `        - name: WATCH_NAMESPACE
          valueFrom:
            fieldRef:
              fieldPath: metadata.namespace
`;

/** manager.yaml with the WATCH_NAMESPACE entry at the end of the manager's env list, where init puts it. */
function addWatchNamespace(content: string): string {
  if (content.includes('WATCH_NAMESPACE')) return content;
  const nodeOptions = /^ {8}- name: NODE_OPTIONS\n {10}value: .*\n/m;
  if (nodeOptions.test(content)) return content.replace(nodeOptions, (entry) => `${entry}${watchNamespaceEntry}`);
  if (/^ {8}env:\n/m.test(content)) return content.replace(/^ {8}env:\n/m, (line) => `${line}${watchNamespaceEntry}`);
  return content.replace(/^(\s+name: manager\n)/m, `$1        env:\n${watchNamespaceEntry}`);
}

/** manager.yaml without the WATCH_NAMESPACE entry (and without an env list it leaves empty). */
function removeWatchNamespace(content: string): string {
  return content.replace(watchNamespaceEntry, '').replace(/^ {8}env:\n(?! {8}[-#])/m, '');
}

/** `scaffold edit`: changes project-wide settings; a flag that is not given keeps PROJECT's value. */
export function scaffoldEdit(root: string, options: EditOptions): EditResult {
  const config = loadProject(root);
  if (options.license !== undefined && !licenses.includes(options.license as License)) {
    throw new ScaffoldError(
      `unknown license "${options.license}" given to --license; use one of: ${licenses.join(', ')}`,
    );
  }
  const next: ProjectConfig = { ...config };
  const notes: string[] = [];
  const plan = new Plan(root);
  const data = { projectName: config.projectName, namespaced: options.namespaced ?? config.namespaced ?? false };

  if (options.multigroup !== undefined && options.multigroup !== Boolean(config.multigroup)) {
    next.multigroup = options.multigroup;
    if (options.multigroup && (config.resources ?? []).some((r) => r.api)) {
      notes.push(
        'Existing APIs stay in api/<version>/ and internal/controller/; new groups go to api/<group>/<version>/ and internal/controller/<group>/. Move existing ones by hand if you want them grouped too (https://book.kubebuilder.io/migration/multi-group).',
      );
    }
  }
  if (options.namespaced !== undefined && options.namespaced !== Boolean(config.namespaced)) {
    next.namespaced = options.namespaced;
    const suffix = options.namespaced ? 'namespaced_' : '';
    plan.template('config/rbac/role.yaml', render(`init/config/rbac/${suffix}role.yaml`, data), 'overwrite');
    plan.template(
      'config/rbac/role_binding.yaml',
      render(`init/config/rbac/${suffix}role_binding.yaml`, data),
      'overwrite',
    );
    plan.edit(
      'config/manager/manager.yaml',
      (content) => {
        return options.namespaced ? addWatchNamespace(content) : removeWatchNamespace(content);
      },
      { ifMissing: 'ignore' },
    );
    notes.push(
      options.namespaced
        ? `Also: pass \`namespaces\` (from WATCH_NAMESPACE) to the Manager in cmd/main.ts, and add ",namespace=${config.projectName}-system" to your +kubebuilder:rbac markers, then run \`scaffold manifests\`.`
        : 'Also: drop `namespaces` from the Manager options in cmd/main.ts and the namespace= argument from your +kubebuilder:rbac markers, then run `scaffold manifests`.',
    );
    if (options.namespaced && (config.resources ?? []).some((r) => r.webhooks))
      notes.push(`Warning: ${NAMESPACED_WEBHOOKS_WARNING}.`);
  }
  let removeBoilerplate = false;
  if (options.license !== undefined || options.owner !== undefined) {
    if (options.license === undefined && config.license === CUSTOM_LICENSE)
      throw new ScaffoldError(
        'the file header is your own (init --license-file), which has no owner to set: edit hack/boilerplate.txt, or pass --license to replace it',
      );
    const license = (options.license ?? config.license ?? 'apache2') as License;
    const owner = options.owner ?? config.owner;
    const badOwner = ownerProblem(owner);
    if (badOwner) throw new ScaffoldError(`invalid --owner: ${badOwner}`);
    next.license = license;
    next.owner = owner;
    const text = boilerplateText(license, owner);
    if (text === undefined) removeBoilerplate = existsSync(join(root, 'hack', 'boilerplate.txt'));
    else plan.template('hack/boilerplate.txt', `${text}\n`, 'overwrite');
  }
  plan.template('PROJECT', stringifyProject(next), 'overwrite');
  const written = plan.commit();
  if (removeBoilerplate) {
    rmSync(join(root, 'hack', 'boilerplate.txt'));
    written.push('hack/boilerplate.txt (removed)');
  }
  return { written, notes };
}
