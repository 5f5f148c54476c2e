/**
 * `scaffold manifests` and `scaffold generate` run only in a kubescaffold project: PROJECT must parse and name
 * kubescaffold's layout (loadProject, with the `yaml` library). Loading that library costs more than the rest of
 * the check, and more than a tenth of a small project's whole run on Node 20, so a PROJECT in the plain subset of
 * YAML that scaffold and kubebuilder write is recognised as valid here without it. Anything else, including every
 * invalid file, goes to loadProject, which words the error.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** project.ts's LAYOUT (not imported: that module loads the yaml library). */
export const KUBESCAFFOLD_LAYOUT = 'typescript.kubescaffold.io/v1';

/** Throws loadProject's error unless root holds a valid kubescaffold PROJECT. */
export async function requireProject(root: string): Promise<void> {
  let text: string | undefined;
  try {
    text = readFileSync(join(root, 'PROJECT'), 'utf8');
  } catch {
    text = undefined;
  }
  if (text !== undefined && isPlainValidProject(text)) return;
  (await import('../project/load.js')).loadProject(root);
}

/** A scalar as written: quoted (a string for sure) or plain (its type depends on its text). */
interface Scalar {
  quoted: boolean;
  text: string;
}

type Value = Scalar | Value[] | Map<string, Value> | null;

class NotPlain extends Error {}

interface Line {
  indent: number;
  text: string;
}

/**
 * True when `text` is in the subset (block mappings of plain keys, block sequences, quoted or plain one-line scalars;
 * ASCII; no comments but whole-line ones, no anchors, tags, flow collections, block scalars, multi-line scalars or
 * duplicate keys), where the yaml library reads what this reads, and parseProject would accept what it reads.
 * False says nothing: the file may still be valid.
 */
export function isPlainValidProject(text: string): boolean {
  if (!/^[\x20-\x7e\n]*$/.test(text)) return false;
  const lines: Line[] = [];
  for (const raw of text.split('\n')) {
    const body = raw.trimEnd();
    if (body === '' || /^ *#/.test(body)) continue;
    const indent = body.length - body.trimStart().length;
    lines.push({ indent, text: body.slice(indent) });
  }
  if (lines.length === 0 || lines[0]!.indent !== 0) return false;
  let doc: Value;
  try {
    const reader = new Reader(lines);
    doc = reader.block(0);
    if (!reader.done()) return false;
  } catch (err) {
    if (err instanceof NotPlain) return false;
    throw err;
  }
  return acceptable(doc);
}

/** parseProject's checks, on values whose types are certain. */
function acceptable(doc: Value): boolean {
  if (!(doc instanceof Map)) return false;
  const version = doc.get('version');
  if (!isScalar(version) || version.text !== '3') return false; // "3", '3' or 3: String(version) === '3'
  if (!isString(doc.get('projectName'))) return false;
  const layout = doc.get('layout');
  const layouts = Array.isArray(layout) ? layout : [layout];
  if (!layouts.some((l) => isString(l) && l.text === KUBESCAFFOLD_LAYOUT)) return false;
  const resources = doc.get('resources');
  if (resources === undefined || resources === null) return true;
  if (!Array.isArray(resources)) return false;
  return resources.every(
    (r) => r instanceof Map && isNonEmptyString(r.get('version')) && isNonEmptyString(r.get('kind')),
  );
}

const isScalar = (v: Value | undefined): v is Scalar =>
  v !== undefined && v !== null && !Array.isArray(v) && !(v instanceof Map);

// A plain scalar that the YAML 1.2 core schema certainly reads as a string: starts with a letter, no null or bool.
const isString = (v: Value | undefined): v is Scalar =>
  isScalar(v) &&
  (v.quoted ||
    (/^[A-Za-z][A-Za-z0-9 ._/-]*$/.test(v.text) &&
      !/^(?:null|Null|NULL|true|True|TRUE|false|False|FALSE)$/.test(v.text)));

const isNonEmptyString = (v: Value | undefined): boolean => isString(v) && v.text !== '';

const KEY = /^([A-Za-z_][A-Za-z0-9_-]*):(?: (.*))?$/;

class Reader {
  private i = 0;

  constructor(private readonly lines: readonly Line[]) {}

  done(): boolean {
    return this.i === this.lines.length;
  }

  /** The block starting at the current line, whose lines stand at `indent`. */
  block(indent: number): Value {
    const line = this.lines[this.i];
    if (!line || line.indent !== indent) throw new NotPlain();
    return line.text.startsWith('- ') ? this.sequence(indent) : this.mapping(indent, line.text);
  }

  private sequence(indent: number): Value[] {
    const items: Value[] = [];
    for (
      let line = this.lines[this.i];
      line && line.indent === indent && line.text.startsWith('- ');
      line = this.lines[this.i]
    ) {
      const rest = line.text.slice(2);
      if (rest.startsWith(' ') || rest.startsWith('-')) throw new NotPlain();
      if (KEY.test(rest)) {
        // `- key: value` starts a mapping whose keys stand two columns in
        items.push(this.mapping(indent + 2, rest));
      } else {
        this.i++;
        items.push(scalar(rest));
      }
    }
    return items;
  }

  /** A mapping whose first line (at the current index) is `first`, already stripped of a `- ` before it. */
  private mapping(indent: number, first: string): Map<string, Value> {
    const map = new Map<string, Value>();
    let text: string | undefined = first;
    while (text !== undefined) {
      const m = KEY.exec(text);
      if (!m || map.has(m[1]!)) throw new NotPlain();
      this.i++;
      const next = this.lines[this.i];
      let value: Value;
      if (m[2] !== undefined && m[2] !== '') value = scalar(m[2]);
      else if (next && (next.indent > indent || (next.indent === indent && next.text.startsWith('- '))))
        value = this.block(next.indent);
      else value = null;
      map.set(m[1]!, value);
      const after = this.lines[this.i];
      text = after && after.indent === indent && !after.text.startsWith('- ') ? after.text : undefined;
      if (after && after.indent > indent) throw new NotPlain();
    }
    return map;
  }
}

function scalar(text: string): Scalar {
  const quoted = /^"([^"\\]*)"$/.exec(text) ?? /^'([^']*)'$/.exec(text);
  if (quoted) return { quoted: true, text: quoted[1]! };
  // plain: no indicator first, nothing that starts a comment, a mapping or a flow collection
  if (/^[-?:,[\]{}#&*!|>'"%@`]/.test(text) || /: |:$| #|[[\]{}]/.test(text)) throw new NotPlain();
  return { quoted: false, text };
}
