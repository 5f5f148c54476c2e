import { managerTemplate } from './manager.js';
import { chartGroup, type Installer, type K8sObject } from './manifests.js';
import { escapeRegExp, objectTemplate, type ChartContext } from './templater.js';

/** The chart's templates derived from the installer: path under templates/ → content. */
export function chartTemplates(installer: Installer, context: ChartContext): Map<string, string> {
  const files = new Map<string, string>();
  for (const o of installer.objects) {
    const group = chartGroup(o);
    if (group === undefined) continue;
    const content = o === installer.manager ? managerTemplate(o, context) : objectTemplate(o, context);
    // The manager's group holds one object, in manager.yaml as kubebuilder names it; the others are a file each.
    const path = group === 'manager' ? 'manager/manager.yaml' : `${group}/${fileName(o, context)}`;
    const previous = files.get(path);
    files.set(path, previous === undefined ? content : `${previous}---\n${content}`);
  }
  return files;
}

/** <name without the prefix>.yaml, with the namespace for a Role or RoleBinding of another namespace (as kubebuilder names them). */
function fileName(o: K8sObject, c: ChartContext): string {
  const name = (o.metadata.name ?? o.kind.toLowerCase()).replace(new RegExp(`^${escapeRegExp(c.prefix)}-`), '');
  const ns = o.metadata.namespace;
  if ((o.kind === 'Role' || o.kind === 'RoleBinding') && ns !== undefined && ns !== c.namespace)
    return `${name}-${ns}.yaml`;
  return `${name}.yaml`;
}
