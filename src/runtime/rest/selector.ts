// Label and field selectors, matched locally (the cached client and LabelSelectorPredicate cannot ask the server).
// Grammar and semantics follow apimachinery's labels.Parse and metav1.LabelSelectorAsSelector.
import { findInChain } from '../errors.js';

/** A requirement's operator (selection.Operator): exists (key), ! (!key), =, !=, in, notin, and gt / lt (numeric). */
export type SelectorOperator = 'exists' | '!' | '=' | '!=' | 'in' | 'notin' | 'gt' | 'lt';

/**
 * One clause of a label selector (labels.Requirement): key, operator and values; values are sorted within a selector.
 */
export interface Requirement {
  /** The label key. */
  key: string;
  /** How the key's value is compared. */
  operator: SelectorOperator;
  /** The values compared with (none for exists and !; one for =, !=, gt and lt). */
  values: string[];
}

/** A parsed label selector (labels.Selector): a conjunction of requirements, matched against an object's labels. */
export interface Selector {
  /** The requirements, sorted by key; all must hold. */
  readonly requirements: readonly Requirement[];
  /** True when every requirement holds for these labels. */
  matches(labels: Readonly<Record<string, string>>): boolean;
  /** True when it matches everything. */
  empty(): boolean;
  /** The selector in the canonical string form labels.Selector.String() prints. */
  toString(): string;
}

/** metav1.LabelSelector. */
export interface LabelSelector {
  /** Labels that must have exactly these values. */
  matchLabels?: Record<string, string>;
  /** Further requirements on label keys; all must hold. */
  matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[];
}

/** A label or field selector string that does not parse; the message says where. */
export class SelectorParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SelectorParseError';
  }
}

/** True when `err` (or an error in its cause chain) is a SelectorParseError: a label or field selector is malformed. */
export function isSelectorParseError(err: unknown): err is SelectorParseError {
  return findInChain(err, SelectorParseError) !== undefined;
}

/** Matches every object: the empty selector (labels.Everything()). */
export function everything(): Selector {
  return newSelector([]);
}

/** Matches nothing: what a missing (nil) metav1.LabelSelector means. */
export function nothing(): Selector {
  return { requirements: [], matches: () => false, empty: () => false, toString: () => '<nothing>' };
}

function matchesRequirement(r: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, r.key);
  const v = labels[r.key];
  switch (r.operator) {
    case 'exists':
      return has;
    case '!':
      return !has;
    case '=':
    case 'in':
      return has && r.values.includes(v as string);
    case '!=':
    case 'notin':
      return !has || !r.values.includes(v as string);
    case 'gt':
    case 'lt': {
      if (!has) return false;
      const n = Number(v);
      const bound = Number(r.values[0]);
      if (!Number.isInteger(n) || v === '') return false;
      return r.operator === 'gt' ? n > bound : n < bound;
    }
  }
}

function requirementString(r: Requirement): string {
  switch (r.operator) {
    case 'exists':
      return r.key;
    case '!':
      return `!${r.key}`;
    case '=':
    case '!=':
      return `${r.key}${r.operator}${r.values[0] ?? ''}`;
    case 'in':
    case 'notin':
      // Sorted, as labels.NewRequirement keeps them: the API server prints `tier in (edge,front)` for [front, edge].
      return `${r.key} ${r.operator} (${[...r.values].sort().join(',')})`;
    case 'gt':
      return `${r.key}>${r.values[0] ?? ''}`;
    case 'lt':
      return `${r.key}<${r.values[0] ?? ''}`;
  }
}

/** A selector of these requirements (labels.NewSelector().Add(...)); they are matched in key order. */
export function newSelector(requirements: Requirement[]): Selector {
  const reqs = [...requirements].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return {
    requirements: reqs,
    matches: (labels) => reqs.every((r) => matchesRequirement(r, labels)),
    empty: () => reqs.length === 0,
    toString: () => reqs.map(requirementString).join(','),
  };
}

/** A selector requiring every given label to have the given value. */
export function selectorFromSet(set: Readonly<Record<string, string>>): Selector {
  return newSelector(Object.entries(set).map(([key, v]) => ({ key, operator: '=', values: [v] })));
}

/** metav1.LabelSelectorAsSelector: undefined matches nothing, {} matches everything. */
export function selectorFromLabelSelector(ls: LabelSelector | undefined | null): Selector {
  if (ls === undefined || ls === null) return nothing();
  const reqs: Requirement[] = Object.entries(ls.matchLabels ?? {}).map(([key, v]) => ({
    key,
    operator: '=',
    values: [v],
  }));
  for (const e of ls.matchExpressions ?? []) {
    const values = e.values ?? [];
    switch (e.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0)
          throw new SelectorParseError(`${e.operator} requires at least one value for key ${e.key}`);
        reqs.push({ key: e.key, operator: e.operator === 'In' ? 'in' : 'notin', values });
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) throw new SelectorParseError(`${e.operator} takes no values (key ${e.key})`);
        reqs.push({ key: e.key, operator: e.operator === 'Exists' ? 'exists' : '!', values: [] });
        break;
      default:
        throw new SelectorParseError(`unknown label selector operator ${String(e.operator)}`);
    }
  }
  return newSelector(reqs);
}

/** Parses a label selector string such as `app=web,tier in (a,b),!legacy,env!=prod`. */
export function parseSelector(input: string): Selector {
  const s = input.trim();
  if (s === '') return everything();
  const reqs: Requirement[] = [];
  let i = 0;
  const skipSpace = (): void => {
    while (i < s.length && /\s/.test(s[i] as string)) i++;
  };
  const readWord = (): string => {
    skipSpace();
    const start = i;
    while (i < s.length && !/[\s,=!<>()]/.test(s[i] as string)) i++;
    return s.slice(start, i);
  };
  const fail = (msg: string): never => {
    throw new SelectorParseError(`unable to parse label selector "${input}": ${msg}`);
  };
  for (;;) {
    skipSpace();
    if (s[i] === '!') {
      i++;
      const key = readWord();
      if (key === '') fail('expected a key after !');
      reqs.push({ key, operator: '!', values: [] });
    } else {
      const key = readWord();
      if (key === '') fail(`expected a key at position ${i}`);
      skipSpace();
      const rest = s.slice(i);
      if (rest.startsWith('==') || rest.startsWith('!=') || rest.startsWith('=')) {
        const op = rest.startsWith('!=') ? '!=' : '=';
        i += rest.startsWith('=') && !rest.startsWith('==') ? 1 : 2;
        reqs.push({ key, operator: op, values: [readWord()] });
      } else if (rest.startsWith('>') || rest.startsWith('<')) {
        i++;
        const v = readWord();
        if (!/^-?\d+$/.test(v)) fail(`${key}: ${v} is not an integer`);
        reqs.push({ key, operator: rest.startsWith('>') ? 'gt' : 'lt', values: [v] });
      } else if (/^(in|notin)\s*\(/.test(rest)) {
        const op = rest.startsWith('in') ? 'in' : 'notin';
        i += op.length;
        skipSpace();
        i++; // (
        const close = s.indexOf(')', i);
        if (close < 0) fail('missing )');
        const values = s
          .slice(i, close)
          .split(',')
          .map((v) => v.trim());
        i = close + 1;
        reqs.push({ key, operator: op, values: values.length === 1 && values[0] === '' ? [] : values });
      } else if (rest === '' || rest.startsWith(',')) {
        reqs.push({ key, operator: 'exists', values: [] });
      } else {
        fail(`unexpected "${rest.slice(0, 10)}" after key ${key}`);
      }
    }
    skipSpace();
    if (i >= s.length) break;
    if (s[i] !== ',') fail(`expected , at position ${i}`);
    i++;
  }
  return newSelector(reqs);
}

/** One clause of a field selector (fields.Requirement): field path, = or !=, and the value. */
export interface FieldRequirement {
  /** The field path, e.g. 'metadata.name'. */
  field: string;
  /** Equal or not equal. */
  operator: '=' | '!=';
  /** The value compared with. */
  value: string;
}

/** Parses a field selector such as `metadata.name=x,status.phase!=Running`. */
export function parseFieldSelector(input: string): FieldRequirement[] {
  const s = input.trim();
  if (s === '') return [];
  return s.split(',').map((part) => {
    const m = /^\s*([^=!\s]+)\s*(==|!=|=)\s*(.*?)\s*$/.exec(part);
    if (!m) throw new SelectorParseError(`invalid field selector "${part}"`);
    return { field: m[1] as string, operator: m[2] === '!=' ? '!=' : '=', value: m[3] as string };
  });
}
