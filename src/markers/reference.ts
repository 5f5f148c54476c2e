/**
 * The marker reference (docs/reference/markers.md, and `scaffold manifests --markers`): every marker the registry
 * knows, group by group as src/markers/defs declares them, with its syntax, where it may stand and what it does,
 * written from the registry itself so that the reference and what `scaffold manifests` accepts cannot disagree.
 */
import { markerGroups, usage } from './registry.js';

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The whole reference as Markdown. */
export function markerReference(): string {
  const lines = [
    '# Marker reference',
    '',
    '<!-- Generated from the marker registry (src/markers/defs) by `npm run docs:reference` (src/markers/reference.ts). Do not edit. -->',
    '',
    "Every `// +` marker `scaffold manifests` reads: controller-gen's markers, with the same names and arguments. A marker",
    "stands in the comment above what it applies to: a package marker in the version folder's groupversion_info.ts, a",
    'type marker above an interface or type alias, a field marker above a property. `npx scaffold manifests --markers`',
    'prints this list. docs/types.md says which TypeScript types stand for which Go types.',
    '',
  ];
  for (const group of markerGroups) {
    lines.push(`## ${group.title}`, '', '| marker | on | what it does |', '|---|---|---|');
    for (const def of [...group.definitions].sort((a, b) => a.name.localeCompare(b.name))) {
      lines.push(`| \`// ${usage(def)}\` | ${def.targets.join(', ')} | ${cell(def.help)} |`);
    }
    lines.push('');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
