/**
 * The marker reference (docs/reference/markers.md, and `scaffold manifests --markers`): every marker the registry
 * knows, with its syntax, where it may stand and what it does, written from the registry itself so that the
 * reference and what `scaffold manifests` accepts cannot disagree.
 */
import { definitions, usage, type MarkerDefinition } from './registry.js';

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The group a marker is listed under, by its name. */
function groupOf(def: MarkerDefinition): string {
  if (def.name.startsWith('kubebuilder:validation:items:')) return 'Validation of array items';
  if (def.name.startsWith('kubebuilder:validation:') || def.name.startsWith('k8s:')) return 'Validation';
  if (def.name === 'kubebuilder:rbac') return 'RBAC';
  if (def.name === 'kubebuilder:webhook' || def.name === 'kubebuilder:webhookconfiguration') return 'Webhooks';
  if (def.targets.length === 1 && def.targets[0] === 'package') return 'Package (groupversion_info.ts)';
  if (def.targets.includes('type') && !def.targets.includes('field')) return 'CRD (on the Kind or a type)';
  return 'Fields and types';
}

const ORDER = ['Package (groupversion_info.ts)', 'CRD (on the Kind or a type)', 'Fields and types', 'Validation', 'Validation of array items', 'RBAC', 'Webhooks'];

/** The whole reference as Markdown. */
export function markerReference(): string {
  const groups = new Map<string, MarkerDefinition[]>();
  const seen = new Set<string>();
  for (const def of definitions) {
    if (seen.has(def.name)) continue;
    seen.add(def.name);
    const group = groupOf(def);
    groups.set(group, [...(groups.get(group) ?? []), def]);
  }
  const lines = [
    '# Marker reference',
    '',
    '<!-- Generated from the marker registry by `npm run docs:reference` (src/markers/reference.ts). Do not edit. -->',
    '',
    "Every `// +` marker `scaffold manifests` reads: controller-gen's markers, with the same names and arguments. A marker",
    'stands in the comment above what it applies to: a package marker in the version folder\'s groupversion_info.ts, a',
    'type marker above an interface or type alias, a field marker above a property. `npx scaffold manifests --markers`',
    'prints this list. docs/types.md says which TypeScript types stand for which Go types.',
    '',
  ];
  for (const group of [...ORDER, ...[...groups.keys()].filter((g) => !ORDER.includes(g))]) {
    const defs = groups.get(group);
    if (!defs) continue;
    lines.push(`## ${group}`, '', '| marker | on | what it does |', '|---|---|---|');
    for (const def of [...defs].sort((a, b) => a.name.localeCompare(b.name))) {
      lines.push(`| \`// ${usage(def)}\` | ${def.targets.join(', ')} | ${cell(def.help)} |`);
    }
    lines.push('');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
