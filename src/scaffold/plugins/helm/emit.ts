import { stringify } from 'yaml';

// A chart template is YAML with Helm actions in it, which no YAML library writes. The object is edited first, with
// placeholder tokens where actions go (a scalar for an inline action, a map key or list item for a block of lines),
// then written with the yaml library, and each token is replaced by its text, indented where the token stood.

/**
 * A block of template lines, given the indent (in spaces) of the place it stands in; each line is written at that
 * indent, but a line starting with AT_MARGIN at the left margin.
 */
export type Block = (indent: number) => string[];

/** Starts a block's line that stands at the left margin (kubebuilder writes some actions there). */
export const AT_MARGIN = '\u0000';

const TOKEN = /__HELM_(I|B)(\d+)__/;

/** Collects the actions of one template and writes the final text. */
export class HelmTemplate {
  private readonly inlines: string[] = [];
  private readonly blocks: Block[] = [];

  /** A scalar standing for `text` (a Helm expression, or text mixing literal parts and expressions). */
  inline(text: string): string {
    this.inlines.push(text);
    return `__HELM_I${this.inlines.length - 1}__`;
  }

  /** A map key or list item standing for a block of lines. */
  block(lines: Block): string {
    this.blocks.push(lines);
    return `__HELM_B${this.blocks.length - 1}__`;
  }

  /** The template of `object`, wrapped in `{{- if condition }}` when given. */
  write(object: unknown, condition?: string): string {
    const yaml = escapeActions(toYaml(object));
    const lines: string[] = [];
    for (const line of yaml.replace(/\n$/, '').split('\n')) lines.push(...this.expand(line));
    const body = lines.join('\n');
    return condition === undefined ? `${body}\n` : `{{- if ${condition} }}\n${body}\n{{- end }}\n`;
  }

  private expand(line: string): string[] {
    const block = /^(\s*)(- )?__HELM_B(\d+)__(: null)?$/.exec(line);
    if (block) {
      const indent = (block[1] ?? '').length;
      const lines = this.blocks[Number(block[3])]?.(indent) ?? [];
      return lines.map((l) => (l.startsWith(AT_MARGIN) ? l.slice(AT_MARGIN.length) : ' '.repeat(indent) + l));
    }
    let out = line;
    for (let m = TOKEN.exec(out); m; m = TOKEN.exec(out)) {
      if (m[1] === 'B') throw new Error(`a block placeholder is not alone on its line: ${line}`);
      out = out.replace(m[0], this.inlines[Number(m[2])] ?? '');
    }
    return [out];
  }
}

/** YAML as kustomize (Go's yaml) writes it: unfolded lines, unindented lists, '*' in single quotes but "" in double. */
function toYaml(value: unknown): string {
  return stringify(value, { lineWidth: 0, indentSeq: false, singleQuote: true, aliasDuplicateObjects: false }).replace(
    /(^|: |- )''$/gm,
    '$1""',
  );
}

/** Text that already holds `{{` or `}}` (a CRD's description, say) is kept literal: Helm must not run it. */
function escapeActions(text: string): string {
  return text.replace(/\{\{|\}\}/g, (m) => (m === '{{' ? '{{ "{{" }}' : '{{ "}}" }}'));
}

/** `value` as YAML lines (for a block), as the yaml library writes it. */
export function yamlLines(value: unknown): string[] {
  return toYaml(value).replace(/\n$/, '').split('\n');
}

/** A map with `key` replaced by `newKey: value` at the same place (other keys keep their order). */
export function renameKey(
  map: Record<string, unknown>,
  key: string,
  newKey: string,
  value: unknown,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(map)) {
    if (k === key) out[newKey] = value;
    else out[k] = v;
  }
  return out;
}

/** A map with `key: value` first. */
export function prependKey(map: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  return { [key]: value, ...map };
}
