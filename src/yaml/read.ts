/**
 * Reading YAML that the CLI did not write (PROJECT, kustomizations, resources, samples, CRDs, plugin configs) with
 * the bounds Go's yaml packages put on it, so that a hostile file gets a one-line refusal instead of exhausting memory
 * or the stack: a size limit, a nesting limit (yaml.v3's max_indents and max_flow_level, checked by a linear scan
 * before the `yaml` library builds anything, since its composer recurses) and a limit on alias expansion (yaml.v3's
 * "excessive aliasing", against billion-laughs documents).
 */
import {
  Composer,
  CST,
  Lexer,
  Parser,
  type Document,
  type DocumentOptions,
  type ParseOptions,
  type SchemaOptions,
  type ToJSOptions,
} from 'yaml';
import { UserError } from '../errors.js';

/** The bounds every YAML input is held to. */
export const YAML_LIMITS = {
  /** Characters in one file; far above any CRD (the API server stores objects up to 1.5 MiB). */
  maxChars: 16 * 1024 * 1024,
  /** Nesting of collections; Go allows 10000, but JavaScript's stack is smaller and no manifest comes near this. */
  maxDepth: 500,
  /** Alias resolutions, as the `yaml` library counts them (resolutions times the aliases inside the anchored node). */
  maxAliasCount: 10_000,
} as const;

/** YAML that cannot be read: not YAML at all, or beyond one of YAML_LIMITS. The message names the file. */
export class YamlInputError extends UserError {
  constructor(
    readonly file: string,
    /** What is wrong, a predicate without the file's name ("is not valid YAML: ..."), for callers that word their own. */
    readonly reason: string,
  ) {
    super(`${file} ${reason}`);
    this.name = 'YamlInputError';
  }
}

/** The `yaml` library's options for composing documents and converting them to data. */
export type YamlReadOptions = DocumentOptions & ParseOptions & SchemaOptions & Pick<ToJSOptions, 'mapAsMap'>;

/** One document of a stream: its node tree (for editing with comments kept) and its value as plain data. */
export interface YamlDocument {
  document: Document.Parsed;
  data: unknown;
}

/**
 * Parses every document of `text`, refusing it (YamlInputError naming `file`) when it is too large, nested too deeply,
 * expands too many aliases or is not valid YAML.
 */
export function readYamlDocuments(text: string, file: string, options: YamlReadOptions = {}): YamlDocument[] {
  if (text.length > YAML_LIMITS.maxChars) {
    throw new YamlInputError(
      file,
      `is larger than ${YAML_LIMITS.maxChars / 1024 / 1024} MiB; scaffold does not read YAML files that large`,
    );
  }
  checkNesting(text, file);
  const lines = lineStarts(text);
  const docs = [...new Composer(options).compose(new Parser().parse(text))];
  return docs.map((document) => {
    const err = document.errors[0];
    if (err) {
      const line = lineAt(lines, err.pos[0]);
      throw new YamlInputError(file, `is not valid YAML: line ${line}: ${err.message.split('\n')[0]}`);
    }
    return { document, data: toData(document, file, options) };
  });
}

/** The one document of `text` (null data when it is empty); more than one is refused. */
export function readYamlDocument(text: string, file: string, options: YamlReadOptions = {}): YamlDocument | undefined {
  const docs = readYamlDocuments(text, file, options);
  if (docs.length > 1) throw new YamlInputError(file, `holds ${docs.length} YAML documents; one is expected`);
  return docs[0];
}

/** A document's value, with alias expansion bounded. */
function toData(document: Document.Parsed, file: string, options: YamlReadOptions): unknown {
  try {
    return document.toJS({ maxAliasCount: YAML_LIMITS.maxAliasCount, mapAsMap: options.mapAsMap });
  } catch (err) {
    if (err instanceof ReferenceError && /alias/i.test(err.message)) {
      throw new YamlInputError(
        file,
        'has excessive aliasing: its anchors and aliases expand to too much data (a "billion laughs" document); write the data out',
      );
    }
    if (err instanceof RangeError) throw new YamlInputError(file, `cannot be read: ${err.message}`);
    throw err;
  }
}

const CONTROL = new Set(['\x02', '\x18', '\x1f', '\u{FEFF}']);

/**
 * Refuses a document nested deeper than YAML_LIMITS.maxDepth, on the `yaml` library's own lexemes (so quoting,
 * comments and block scalars are read as it reads them), before its recursive composer sees it. Block nesting is
 * bounded by the columns that content starts at on the way in (a column can hold a mapping and the sequence beside its
 * keys, hence twice), flow nesting by open brackets.
 */
function checkNesting(text: string, file: string): void {
  const columns: number[] = [];
  let flow = 0;
  let line = 1;
  let col = 0;
  let lineStart = true;
  let afterIndicator = false;
  let scalarNext = false;
  let blockScalar = false;
  for (const lexeme of new Lexer().lex(text)) {
    if (CONTROL.has(lexeme)) {
      scalarNext = lexeme === '\x1f';
      continue;
    }
    const type = scalarNext ? 'scalar' : CST.tokenType(lexeme);
    scalarNext = false;
    // a block scalar's text (its lines, indentation included) is one lexeme after the header: not a node's start
    const blockText = blockScalar && type === 'scalar';
    if (type === 'block-scalar-header') blockScalar = true;
    else if (type === 'scalar') blockScalar = false;
    if (type === 'newline') {
      line++;
      col = 0;
      lineStart = true;
      afterIndicator = false;
      continue;
    }
    const content = type !== 'space' && type !== 'comment' && !blockText;
    if (content && flow === 0 && (lineStart || afterIndicator)) {
      if (lineStart) while (columns.length > 0 && columns.at(-1)! > col) columns.pop();
      if (columns.length === 0 || columns.at(-1)! < col) columns.push(col);
    }
    if (content) {
      lineStart = false;
      afterIndicator = type === 'seq-item-ind' || type === 'explicit-key-ind' || type === 'map-value-ind';
    }
    if (type === 'flow-seq-start' || type === 'flow-map-start') flow++;
    else if ((type === 'flow-seq-end' || type === 'flow-map-end') && flow > 0) flow--;
    if (2 * columns.length + flow > YAML_LIMITS.maxDepth) {
      throw new YamlInputError(
        file,
        `is nested more than ${YAML_LIMITS.maxDepth} levels deep (at line ${line}); scaffold does not read YAML nested that deeply`,
      );
    }
    // multi-line scalars (block, quoted, plain) come as one lexeme
    const nl = lexeme.lastIndexOf('\n');
    if (nl < 0) col += lexeme.length;
    else {
      for (let i = 0; i <= nl; i++) if (lexeme.charCodeAt(i) === 10) line++;
      col = lexeme.length - nl - 1;
      lineStart = col === 0;
      afterIndicator = false;
    }
  }
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** The 1-based line of `offset`. */
function lineAt(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}
