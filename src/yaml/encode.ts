/**
 * JSON data as gopkg.in/yaml.v2 writes it after reading it back from JSON, which is how controller-gen and kustomize
 * (through sigs.k8s.io/yaml) print objects: block mappings with keys in yaml.v2's order, sequences under a key at
 * the key's column, empty collections as `[]` and `{}`, numbers as yaml.v2 formats them (encode.go).
 */
import { analyzeScalar, BEST_INDENT, Writer, type ScalarAnalysis, type ScalarStyle, type Written } from './emitter.js';
import { sortYamlKeys } from './keys.js';
import { resolvesToNonString } from './resolve.js';

type Json = string | number | boolean | null | undefined | Json[] | { [key: string]: Json };

export interface YamlOptions {
  /**
   * Write an object met a second time once more and replay that text from then on, across calls: for callers whose
   * shared objects never change after they are printed (the CRD generator's named-type schemas). Default false.
   */
  replaySharedObjects?: boolean;
}

const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

/**
 * A number as yaml.v2 writes it: Go's encoding/json text of the number is read back as an int when it fits int64 or
 * uint64, otherwise as a float64, which strconv.FormatFloat(f, 'g', -1, 64) writes (1e+21, 2.5e-05, 1.2345675e+06).
 */
export function formatNumber(x: number): string {
  if (Number.isSafeInteger(x)) return String(x);
  if (Number.isNaN(x)) return '.nan';
  if (!Number.isFinite(x)) return x > 0 ? '.inf' : '-.inf';
  if (Number.isInteger(x) && Math.abs(x) < 1e21) {
    // Go and JavaScript both write the shortest digits that round-trip, padded with zeros.
    const text = String(x);
    const n = BigInt(text);
    if (n >= INT64_MIN && n <= UINT64_MAX) return text;
  }
  const [mantissa, expText] = x.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(x);
}

/** Mappings whose values are all undefined print as `{}`, as JSON marshalling leaves such keys out. */
function isEmptyCollection(v: Json[] | { [key: string]: Json }): boolean {
  if (Array.isArray(v)) return v.length === 0;
  for (const k in v) if (v[k] !== undefined) return false;
  return true;
}

const isNonEmptyCollection = (v: Json): v is Json[] | { [key: string]: Json } =>
  typeof v === 'object' && v !== null && !isEmptyCollection(v);

/*
 * Schemas of named types are shared objects (PodSpec under every Kind's template): their YAML at a given indent is
 * always the same text, so it is written once and replayed. An object is recorded the second time it is met, which
 * costs nothing for the (many) objects that occur once. Where a big collection was first written is remembered
 * too, so that when it is met again after that document is done (the next CRD), its text is cut from there instead
 * of being written a second time.
 */
const seen = new WeakSet<object>();
const replays = new WeakMap<object, Map<number, Written>>();

/** A document being written; `text` is set once it is done. */
interface Doc {
  text?: string;
}

interface FirstWrite extends Omit<Written, 'text'> {
  doc: Doc;
  start: number;
  end: number;
}

const firstWrites = new WeakMap<object, Map<number, FirstWrite>>();
/** Smaller collections are written again rather than remembered. */
const FIRST_WRITE_MIN = 1024;

/** encoder.stringv's request for a string; the emitter may still pick another style. */
const requestedStyle = (s: string): ScalarStyle =>
  s.includes('\n') ? 'literal' : resolvesToNonString(s) ? 'double' : 'plain';

const simpleKeys = new Map<string, { text: string; width: number } | null>();

/**
 * A mapping key as yaml.v2 writes it, with its ':', or null where it is not a simple key. A simple key is never
 * folded and follows write_indent, so its text is the same wherever it stands: it is worked out once per key.
 */
function simpleKeyText(k: string): { text: string; width: number } | null {
  let key = simpleKeys.get(k);
  if (key === undefined) {
    const analysis = analyzeScalar(k);
    if (analysis.multiline || Buffer.byteLength(k) > 128) key = null;
    else {
      const w = new Writer();
      w.scalar(k, requestedStyle(k), BEST_INDENT, true, analysis);
      w.indicator(':', false, false, false);
      const written = w.since(0);
      key = { text: written.text, width: written.column };
    }
    simpleKeys.set(k, key);
  }
  return key;
}

/**
 * Walks the value in yaml.v2's event order. `parent` is the indent of the enclosing collection (-1 at the root),
 * from which libyaml's increase_indent derives each node's own.
 */
class Encoder {
  readonly w = new Writer();
  readonly doc: Doc = {};

  constructor(private readonly replaySharedObjects: boolean) {}

  node(v: Json, parent: number, indentlessSequence: boolean): void {
    if (v === null || v === undefined) this.w.word('null');
    else if (typeof v === 'boolean') this.w.word(String(v));
    else if (typeof v === 'number') this.w.word(formatNumber(v));
    // a scalar's continuation lines go one level in, also at the root
    else if (typeof v === 'string') this.string(v, parent < 0 ? BEST_INDENT : parent + BEST_INDENT, false);
    else if (isEmptyCollection(v)) this.w.indicator(Array.isArray(v) ? '[]' : '{}', true, false, false);
    else if (Array.isArray(v)) this.sequence(v, parent < 0 ? 0 : indentlessSequence ? parent : parent + BEST_INDENT);
    else this.mapping(v, parent < 0 ? 0 : parent + BEST_INDENT);
  }

  private string(s: string, indent: number, simpleKey: boolean, analysis?: ScalarAnalysis): void {
    this.w.scalar(s, requestedStyle(s), indent, simpleKey, analysis);
  }

  /** A block mapping whose keys start at `indent`; keys whose value is undefined are left out, as in JSON. */
  private mapping(obj: { [key: string]: Json }, indent: number): void {
    for (const k of sortYamlKeys(Object.keys(obj).filter((key) => obj[key] !== undefined))) {
      this.w.indent(indent);
      const key = simpleKeyText(k);
      if (key === null) {
        // not a simple key for yaml.v2 (check_simple_key): `? key`, then `: value` on a line of its own
        this.w.indicator('?', true, false, true);
        this.string(k, indent + BEST_INDENT, false);
        this.w.indent(indent);
        this.w.indicator(':', true, false, true);
        this.node(obj[k], indent, false);
      } else {
        this.w.key(key.text, key.width);
        // a sequence here stays at the key's column (the emitter's indentless sequence in a mapping)
        this.simpleKeyValue(obj[k], indent);
      }
    }
  }

  /** A block sequence whose dashes stand at `indent`. */
  private sequence(items: Json[], indent: number): void {
    for (const item of items) {
      this.w.indent(indent);
      this.w.indicator('-', true, false, true);
      this.node(item, indent, false);
    }
  }

  private simpleKeyValue(v: Json, keyIndent: number): void {
    if (!this.replaySharedObjects || !isNonEmptyCollection(v)) return this.node(v, keyIndent, true);
    const cached = replays.get(v)?.get(keyIndent);
    if (cached) return this.w.replay(cached);
    if (!seen.has(v)) {
      seen.add(v);
      const start = this.w.length;
      this.node(v, keyIndent, true);
      const end = this.w.length;
      if (end - start >= FIRST_WRITE_MIN) {
        let byIndent = firstWrites.get(v);
        if (!byIndent) firstWrites.set(v, (byIndent = new Map()));
        byIndent.set(keyIndent, { doc: this.doc, start, end, ...this.w.state() });
      }
      return;
    }
    let byIndent = replays.get(v);
    if (!byIndent) replays.set(v, (byIndent = new Map()));
    const first = firstWrites.get(v)?.get(keyIndent);
    const done = first?.doc.text;
    if (first && done !== undefined) {
      const { start, end, column, whitespace, indention } = first;
      const written: Written = { text: done.slice(start, end), column, whitespace, indention };
      byIndent.set(keyIndent, written);
      return this.w.replay(written);
    }
    const mark = this.w.mark();
    this.node(v, keyIndent, true);
    byIndent.set(keyIndent, this.w.since(mark));
  }
}

/** One YAML document body (without a leading `---`), as yaml.v2 writes it. */
export function toYamlDocument(value: unknown, options: YamlOptions = {}): string {
  const e = new Encoder(options.replaySharedObjects ?? false);
  e.node(value as Json, -1, false);
  // the document end's write_indent: the last line is ended unless it already is
  e.w.indent(0);
  e.doc.text = e.w.text();
  return e.doc.text;
}

/** A file as controller-gen writes one: the header, then each object as `---` and its document. */
export function toYamlFile(objects: readonly unknown[], header = '', options: YamlOptions = {}): string {
  return header + objects.map((o) => `---\n${toYamlDocument(o, options)}`).join('');
}
