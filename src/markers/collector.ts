/**
 * Reads TypeScript sources (with the TypeScript compiler's parser) and attaches markers and descriptions to the
 * declarations they describe, following controller-gen's placement rules adapted to TypeScript:
 *
 * - Markers are `// +...` lines (or `+...` lines inside a JSDoc) in the comments right above an interface, type
 *   alias, enum or property. The comment group touching the declaration is its doc; the closest group above it,
 *   separated by a blank line, may also carry markers for it (as in Go, where markers often sit in their own block).
 * - All other comments are free-standing: their markers describe the package (the folder). Package-only markers
 *   (+groupName, +kubebuilder:rbac, ...) are accepted anywhere, since they cannot mean anything else.
 * - A `+kubebuilder:` marker that is unknown, stands where it cannot apply, or has bad arguments is an error.
 */
import type * as T from 'typescript';
import { ts } from './typescript.js';
import { extractDoc, type RawComment } from './docs.js';
import { DiagnosticBag, type SourcePosition } from '../diagnostics.js';
import { MarkerSyntaxError, parseMarkerArguments, type MarkerValue } from './grammar.js';
import type { MarkerTarget } from './defs/define.js';
import { lookupMarker, usage } from './registry.js';

/** One `+...` marker found in a comment, with its parsed arguments and where it was written. */
export interface Marker {
  /** The marker's registered name, e.g. `kubebuilder:validation:Maximum`. */
  name: string;
  value: MarkerValue;
  /** The marker text as written, starting with '+'. */
  text: string;
  pos: SourcePosition;
}

/** Markers of one node in source order. */
export class MarkerSet {
  constructor(readonly list: readonly Marker[] = []) {}

  /** Whether any marker has this name. */
  has(name: string): boolean {
    return this.list.some((m) => m.name === name);
  }

  /** The first marker with this name. */
  get(name: string): Marker | undefined {
    return this.list.find((m) => m.name === name);
  }

  /** Every marker with this name, in source order. */
  all(name: string): Marker[] {
    return this.list.filter((m) => m.name === name);
  }
}

/** The declarations that can carry type markers and become schemas: interfaces, type aliases and enums. */
export type TypeDeclNode = T.InterfaceDeclaration | T.TypeAliasDeclaration | T.EnumDeclaration;

/** A top-level interface, type alias or enum with its markers and doc comment, as the CRD generator reads it. */
export interface TypeDecl {
  name: string;
  node: TypeDeclNode;
  file: SourceInfo;
  exported: boolean;
  markers: MarkerSet;
  doc: string;
  pos: SourcePosition;
}

/** The markers and doc comment attached to one property signature (a CRD field). */
export interface MemberInfo {
  markers: MarkerSet;
  doc: string;
}

/** Where an imported name comes from, so program.ts can follow it to its declaration. */
export interface ImportRef {
  /** The module specifier as written. */
  module: string;
  /** The exported name in that module; '*' for `import * as ns`. */
  name: string;
}

/** One parsed source file: its types, imports, field markers and package markers, and the problems found in them. */
export interface SourceInfo {
  path: string;
  source: T.SourceFile;
  /** Top-level interfaces, type aliases and enums by name. */
  types: Map<string, TypeDecl>;
  /** Markers and docs of property signatures and of the bases in `extends` (Go's embedded fields), by node. */
  members: Map<T.Node, MemberInfo>;
  imports: Map<string, ImportRef>;
  /** Free-standing markers, in source order. */
  packageMarkers: Marker[];
  /** Problems with this file's markers. */
  diagnostics: DiagnosticBag;
}

/** Parses one file and attaches its markers; problems are kept in its `diagnostics`. */
export function collectFile(path: string, text: string): SourceInfo {
  try {
    return collectParsed(path, parse(path, text));
  } catch (err) {
    // The compiler's parser (and the walks here) recurse once per level of nesting: a file nested some thousands of
    // levels deep (`{a:{a:...`) runs out of stack. That is the file's problem to report, not a crash with a trace.
    if (!isStackOverflow(err)) throw err;
    const info = collectParsed(path, parse(path, ''));
    info.diagnostics.at(
      { file: path, line: 1, column: 1 },
      'cannot read this file: it nests too deeply for the TypeScript parser',
    );
    return info;
  }
}

function isStackOverflow(err: unknown): boolean {
  return err instanceof RangeError && err.message.includes('call stack');
}

function parse(path: string, text: string): T.SourceFile {
  // Docs and markers are read from the comment text (docs.ts), never from the compiler's JSDoc nodes: not parsing
  // those saves a third of the parse. Nothing reads Node.parent either (the source file is always passed), so the
  // parser does not set it.
  const options = { languageVersion: ts.ScriptTarget.Latest, jsDocParsingMode: ts.JSDocParsingMode.ParseNone };
  return ts.createSourceFile(path, text, options, false, ts.ScriptKind.TS);
}

function collectParsed(path: string, source: T.SourceFile): SourceInfo {
  const text = source.text;
  const diags = new DiagnosticBag();
  const info: SourceInfo = {
    path,
    source,
    types: new Map(),
    members: new Map(),
    imports: new Map(),
    packageMarkers: [],
    diagnostics: diags,
  };
  const claimed = new Set<number>();
  const ctx: Ctx = { info, diags, claimed };
  // The parser recovers from syntax errors; report them, or a half-read type would quietly lose fields.
  const syntax =
    (source as unknown as { parseDiagnostics?: readonly T.DiagnosticWithLocation[] }).parseDiagnostics ?? [];
  for (const d of syntax.slice(0, 5)) {
    diags.at(position(source, d.start), `syntax error: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
  }

  for (const stmt of source.statements) {
    if (ts.isImportDeclaration(stmt)) recordImport(info, stmt);
    else if (ts.isInterfaceDeclaration(stmt) || ts.isTypeAliasDeclaration(stmt) || ts.isEnumDeclaration(stmt)) {
      const att = attach(ctx, stmt, 'type');
      const decl: TypeDecl = {
        name: stmt.name.text,
        node: stmt,
        file: info,
        exported: stmt.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) ?? false,
        markers: att.markers,
        doc: att.doc,
        pos: position(source, stmt.name.getStart(source)),
      };
      if (!info.types.has(decl.name)) info.types.set(decl.name, decl);
      if (ts.isInterfaceDeclaration(stmt)) attachEmbeds(ctx, stmt);
      visitMembers(ctx, stmt);
    }
  }
  if (mayHoldMarkers(text)) {
    for (const c of syntax.length === 0 ? commentsOutsideLiterals(source) : allComments(source)) {
      if (claimed.has(c.pos)) continue;
      for (const line of markerLines(source, c)) addMarker(ctx, line, 'package', info.packageMarkers);
    }
  }
  return info;
}

interface Ctx {
  info: SourceInfo;
  diags: DiagnosticBag;
  claimed: Set<number>;
}

/**
 * A base in `extends` is Go's embedded field: the comments right above it (or above `extends`, for the first base)
 * are that field's markers, such as the `// +optional` Go writes on an inline field.
 */
function attachEmbeds(ctx: Ctx, stmt: T.InterfaceDeclaration): void {
  for (const clause of stmt.heritageClauses ?? []) {
    clause.types.forEach((base, i) => {
      const parts = [...(i === 0 ? [attach(ctx, clause, 'field')] : []), attach(ctx, base, 'field')];
      ctx.info.members.set(base, {
        markers: new MarkerSet(parts.flatMap((p) => p.markers.list)),
        doc: parts
          .map((p) => p.doc)
          .filter((d) => d !== '')
          .join('\n'),
      });
    });
  }
}

function visitMembers(ctx: Ctx, node: T.Node): void {
  const visit = (n: T.Node): void => {
    if (ts.isPropertySignature(n)) ctx.info.members.set(n, attach(ctx, n, 'field'));
    ts.forEachChild(n, visit);
  };
  ts.forEachChild(node, visit);
}

function recordImport(info: SourceInfo, stmt: T.ImportDeclaration): void {
  if (!ts.isStringLiteral(stmt.moduleSpecifier) || !stmt.importClause) return;
  const module = stmt.moduleSpecifier.text;
  const clause = stmt.importClause;
  if (clause.name) info.imports.set(clause.name.text, { module, name: 'default' });
  const bindings = clause.namedBindings;
  if (!bindings) return;
  if (ts.isNamespaceImport(bindings)) info.imports.set(bindings.name.text, { module, name: '*' });
  else
    for (const el of bindings.elements)
      info.imports.set(el.name.text, { module, name: (el.propertyName ?? el.name).text });
}

interface CommentRange {
  pos: number;
  end: number;
  text: string;
}

interface MarkerLine {
  text: string;
  offset: number;
}

/** Attaches the markers and description in the comments above `node`. */
function attach(ctx: Ctx, node: T.Node, target: MarkerTarget): MemberInfo {
  const { source } = ctx.info;
  const text = source.text;
  const ranges = (ts.getLeadingCommentRanges(text, node.pos) ?? []).map((r) => ({
    pos: r.pos,
    end: r.end,
    text: text.slice(r.pos, r.end),
  }));
  const groups = groupByBlankLines(source, ranges);
  const startLine = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
  const last = groups[groups.length - 1];
  const adjacent = last && lineOf(source, last[last.length - 1]!.end) >= startLine - 1 ? last : undefined;
  const separated = adjacent ? groups[groups.length - 2] : last;
  const markers: Marker[] = [];
  // The separated block first: it stands above the doc comment in the source.
  for (const c of [...(separated ?? []), ...(adjacent ?? [])]) {
    ctx.claimed.add(c.pos);
    for (const line of markerLines(source, c)) addMarker(ctx, line, target, markers);
  }
  return {
    markers: new MarkerSet(markers),
    doc: extractDoc((adjacent ?? []).map((c): RawComment => ({ text: c.text }))),
  };
}

function groupByBlankLines(source: T.SourceFile, ranges: CommentRange[]): CommentRange[][] {
  const groups: CommentRange[][] = [];
  for (const r of ranges) {
    const cur = groups[groups.length - 1];
    const prev = cur?.[cur.length - 1];
    if (cur && prev && lineOf(source, r.pos) <= lineOf(source, prev.end) + 1) cur.push(r);
    else groups.push([r]);
  }
  return groups;
}

function lineOf(source: T.SourceFile, pos: number): number {
  return source.getLineAndCharacterOfPosition(pos).line;
}

function position(source: T.SourceFile, pos: number): SourcePosition {
  const lc = source.getLineAndCharacterOfPosition(pos);
  return { file: source.fileName, line: lc.line + 1, column: lc.character + 1 };
}

/** The `+...` lines of a comment with their offsets in the file. */
function markerLines(source: T.SourceFile, c: CommentRange): MarkerLine[] {
  if (c.text.startsWith('//')) {
    const m = /^\/\/\s*/.exec(c.text)!;
    if (c.text[m[0].length] !== '+') return [];
    return [{ text: c.text.slice(m[0].length).trim(), offset: c.pos + m[0].length }];
  }
  if (!c.text.startsWith('/**')) return []; // plain /* */ blocks never hold markers, as in Go
  const out: MarkerLine[] = [];
  let offset = c.pos;
  for (const row of c.text.split('\n')) {
    const m = /^(\s*\/?\*+\s*|\s*)\+/.exec(row);
    if (m) {
      const start = m[0].length - 1;
      out.push({
        text: row
          .slice(start)
          .replace(/\*\/\s*$/, '')
          .trim(),
        offset: offset + start,
      });
    }
    offset += row.length + 1;
  }
  return out;
}

function addMarker(ctx: Ctx, line: MarkerLine, target: MarkerTarget, into: Marker[]): void {
  const pos = position(ctx.info.source, line.offset);
  const found = lookupMarker(line.text, target);
  switch (found.kind) {
    case 'foreign':
      return;
    case 'unknown':
      ctx.diags.at(
        pos,
        `unknown marker ${markerName(line.text)}${found.suggestion ? `; did you mean +${found.suggestion}?` : ''}`,
      );
      return;
    case 'misplaced': {
      if (found.definition.targets.includes('package')) {
        // unambiguous package markers (+kubebuilder:rbac, +groupName) are accepted wherever they stand
        addMarker(ctx, line, 'package', ctx.info.packageMarkers);
        return;
      }
      ctx.diags.at(
        pos,
        `marker +${found.definition.name} cannot stand ${placeName(target)}; ${whereItBelongs(found.definition.targets)}`,
      );
      return;
    }
    case 'found':
      try {
        const value = parseMarkerArguments(line.text, found.definedName, found.definition.shape);
        into.push({ name: found.definition.name, value, text: line.text, pos });
      } catch (err) {
        if (!(err instanceof MarkerSyntaxError)) throw err;
        const at = position(ctx.info.source, line.offset + err.offset);
        const quoteHint = /=\s*'/.test(line.text) ? ' (single quotes are not string quotes: use "..." or `...`)' : '';
        ctx.diags.at(
          at,
          `invalid marker +${found.definition.name}: ${err.message}${quoteHint}; expected ${usage(found.definition)}`,
        );
      }
  }
}

function markerName(text: string): string {
  const eq = text.indexOf('=');
  return eq < 0 ? text : text.slice(0, eq);
}

function placeName(target: MarkerTarget): string {
  return target === 'field' ? 'on a property' : target === 'type' ? 'on a type' : 'as a free-standing comment';
}

function whereItBelongs(targets: readonly MarkerTarget[]): string {
  if (targets.includes('type') && targets.includes('field'))
    return 'put it directly above an interface, type alias or property';
  if (targets.includes('type')) return 'put it directly above the exported interface or type it describes';
  if (targets.includes('field')) return 'put it directly above the property it describes';
  return 'put it in a free-standing comment (separated from declarations by a blank line)';
}

function mayHoldMarkers(text: string): boolean {
  return /(\/\/|\*)\s*\+[a-zA-Z]/.test(text);
}

/**
 * Every comment in a file that parsed without errors: each `//` or `/*` outside the literals (strings, templates,
 * regular expressions), which are the only tokens that can hold those characters. What allComments finds, without
 * making a node of every token.
 */
function commentsOutsideLiterals(source: T.SourceFile): CommentRange[] {
  const text = source.text;
  const literals: Array<[number, number]> = [];
  const visit = (n: T.Node): void => {
    if (ts.isStringLiteral(n) || ts.isRegularExpressionLiteral(n) || ts.isTemplateLiteralToken(n))
      literals.push([n.getStart(source), n.end]);
    else ts.forEachChild(n, visit);
  };
  visit(source);
  literals.sort((a, b) => a[0] - b[0]);
  const out: CommentRange[] = [];
  let l = 0;
  // a shebang line is not a comment (the compiler skips it as trivia)
  let i = text.startsWith('#!') ? lineEnd(text, 2) : 0;
  for (let at = text.indexOf('/', i); at >= 0; at = text.indexOf('/', i)) {
    while (l < literals.length && literals[l]![1] <= at) l++;
    const literal = literals[l];
    if (literal && literal[0] <= at) {
      i = literal[1];
      continue;
    }
    const next = text.charCodeAt(at + 1);
    if (next === 47 /* / */) i = lineEnd(text, at + 2);
    else if (next === 42 /* * */) {
      const close = text.indexOf('*/', at + 2);
      i = close < 0 ? text.length : close + 2;
    } else {
      i = at + 1;
      continue;
    }
    out.push({ pos: at, end: i, text: text.slice(at, i) });
  }
  return out;
}

/** Where the line that `from` is on ends (the compiler's line breaks), or the end of the text. */
function lineEnd(text: string, from: number): number {
  const m = /[\n\r\u2028\u2029]/g;
  m.lastIndex = from;
  return m.exec(text)?.index ?? text.length;
}

/** Every comment in the file, found through the leading trivia of every token. */
function allComments(source: T.SourceFile): CommentRange[] {
  const text = source.text;
  const seen = new Map<number, CommentRange>();
  const take = (pos: number): void => {
    for (const r of [
      ...(ts.getLeadingCommentRanges(text, pos) ?? []),
      ...(ts.getTrailingCommentRanges(text, pos) ?? []),
    ]) {
      if (!seen.has(r.pos)) seen.set(r.pos, { pos: r.pos, end: r.end, text: text.slice(r.pos, r.end) });
    }
  };
  const visit = (n: T.Node): void => {
    take(n.pos);
    if (n.kind < ts.SyntaxKind.FirstNode && n.kind !== ts.SyntaxKind.SyntaxList) {
      take(n.end);
      return;
    }
    for (const child of n.getChildren(source)) visit(child);
    take(n.end);
  };
  visit(source);
  return [...seen.values()].sort((a, b) => a.pos - b.pos);
}
