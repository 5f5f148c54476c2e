// Decodes a List response while it arrives: each element of the top-level "items" array is parsed as soon as its
// last byte is in, so parsing overlaps the API server's encoding (it streams large lists) instead of starting after
// the whole body, and the body never exists as one large buffer and string. The rest of the document (apiVersion,
// kind, metadata) is parsed at the end with "items" left empty. An item function, if given, sees each item as soon as
// it is parsed: an informer's transform then drops what it does not keep while it is young, instead of that garbage
// surviving (and being copied by every scavenge) until the whole list is in. For a transform that drops
// metadata.managedFields anyway, the decoder can leave their bytes out before JSON.parse: as parsed they are a tree of
// tiny objects, often a third of an item's JSON and more of its parse.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

const ITEMS_KEY = Buffer.from('"items"');
const METADATA_KEY = Buffer.from('"metadata"');
const MANAGED_FIELDS_KEY = Buffer.from('"managedFields"');
// The items array sits in the top-level object: depth 1 is the object, 2 the array, 3 inside an object item, 4
// inside its metadata.
const ITEMS_DEPTH = 2;
const ITEM_DEPTH = 3;
const METADATA_DEPTH = 4;

/** Thrown for a body that is not a JSON object; the caller reports it with the request. */
export class ListDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ListDecodeError';
  }
}

/** Options of a ListStreamDecoder. */
export interface ListDecodeOptions {
  /**
   * Leave each item's metadata.managedFields out of what is parsed (for a transform that drops them anyway). Done where
   * the body is written compactly, as the API server writes it; an item it cannot tell about is parsed whole.
   */
  omitManagedFields?: boolean;
  /**
   * The apiVersion and kind that a list's items leave out (a list of ConfigMaps says them once, not per item): parsed
   * as each item's first members, so they are part of the object JSON.parse makes. Set after the parse they would go
   * to a separate property array (24 bytes an object more: 2.3 MiB at 100,000 cached ConfigMaps). An item that has its own
   * keeps them: JSON keeps the last of two equal keys.
   */
  typeMeta?: { apiVersion: string; kind: string };
}

/** A list document decoded: its envelope and its items apart. */
export interface DecodedList {
  /** The document without its items (its "items" member is an empty array if it had one). */
  envelope: Record<string, unknown>;
  /** The items, each as the item mapper returned it. */
  items: unknown[];
}

/**
 * A byte-level JSON scanner that tracks nesting and strings only: the structural bytes it looks for are ASCII, and
 * UTF-8 continuation bytes are never ASCII, so it needs no decoding. Feed chunks with write(), then call end().
 */
export class ListStreamDecoder {
  /** The items decoded so far, in order. */
  readonly items: unknown[] = [];
  private readonly omitManagedFields: boolean;
  // '{"apiVersion":…,"kind":…,': what an object item's first byte is replaced with (typeMeta), or ''.
  private readonly typePrefix: string;
  /** @param mapItem applied to each item as it is parsed; what it returns is kept in its place. */
  constructor(
    private readonly mapItem?: (item: unknown) => unknown,
    opts: ListDecodeOptions = {},
  ) {
    this.omitManagedFields = opts.omitManagedFields ?? false;
    const t = opts.typeMeta;
    this.typePrefix = t ? `{"apiVersion":${JSON.stringify(t.apiVersion)},"kind":${JSON.stringify(t.kind)},` : '';
  }

  private readonly envelope: Buffer[] = [];
  // Bytes not yet handed to the envelope or to an item: from `start` in `pending` on, scanned up to `pos`.
  private pending: Buffer = Buffer.alloc(0);
  private start = 0;
  private pos = 0;
  private depth = 0;
  private inString = false;
  // Within the top-level object: whether the next string is a key, and where the last key began (for "items").
  private expectKey = false;
  private keyStart = -1;
  private lastKeyIsItems = false;
  // Inside the items array (the array is at depth 2; an object or array item opens depth 3).
  private inItems = false;
  private itemStart = -1;
  // omitManagedFields: whether the current item's metadata object is open, and the bytes of its managedFields
  // member to leave out ([cutFrom, cutTo) in `pending`, with its comma), once found; -1 while unknown.
  private inMetadata = false;
  private cutFrom = -1;
  private cutTo = -1;
  private cutFirstMember = false;

  write(chunk: Buffer): void {
    // Keep only the unconsumed tail of the previous chunks: at most one item or one envelope stretch.
    this.pending = this.start < this.pending.length ? Buffer.concat([this.pending.subarray(this.start), chunk]) : chunk;
    this.pos -= this.start;
    if (this.keyStart >= 0) this.keyStart -= this.start;
    if (this.itemStart >= 0) this.itemStart -= this.start;
    if (this.cutFrom >= 0) this.cutFrom -= this.start;
    if (this.cutTo >= 0) this.cutTo -= this.start;
    this.start = 0;
    this.scan();
  }

  end(): DecodedList {
    if (this.inString || this.depth !== 0) throw new ListDecodeError('the response body ended inside a JSON value');
    this.flushEnvelope(this.pending.length);
    const text = Buffer.concat(this.envelope).toString('utf8');
    let envelope: unknown;
    try {
      envelope = JSON.parse(text);
    } catch (e) {
      throw new ListDecodeError(`the response body is not JSON: ${(e as Error).message}`);
    }
    if (envelope === null || typeof envelope !== 'object' || Array.isArray(envelope)) {
      throw new ListDecodeError('the response body is not a JSON object');
    }
    return { envelope: envelope as Record<string, unknown>, items: this.items };
  }

  private scan(): void {
    const buf = this.pending;
    const n = buf.length;
    let i = this.pos;
    // Inside an object or array item (nearly every byte of a list): the tight loop.
    if (this.inItems && this.depth > ITEMS_DEPTH && !this.inString) i = this.scanItem(buf, i, n);
    while (i < n) {
      if (this.inString) {
        const q = buf.indexOf(QUOTE, i);
        if (q < 0) {
          i = n;
          break;
        }
        // The quote is escaped when an odd run of backslashes precedes it. The whole string is still in `pending`
        // (nothing is consumed mid-string), so the run is counted even when it began in an earlier chunk.
        let backslashes = 0;
        for (let b = q - 1; b >= 0 && buf[b] === BACKSLASH; b--) backslashes++;
        i = q + 1;
        if (backslashes % 2 === 1) continue;
        this.inString = false;
        if (this.keyStart >= 0) {
          this.lastKeyIsItems =
            i - this.keyStart === ITEMS_KEY.length && buf.subarray(this.keyStart, i).equals(ITEMS_KEY);
          this.keyStart = -1;
        } else if (this.inItems && this.depth === ITEMS_DEPTH && this.itemStart >= 0) {
          this.finishItem(buf, i);
        } else if (this.inItems && this.depth > ITEMS_DEPTH) {
          i = this.scanItem(buf, i, n);
        }
        continue;
      }
      const c = buf[i] as number;
      switch (c) {
        case QUOTE:
          this.inString = true;
          if (this.depth === 1 && this.expectKey) {
            this.keyStart = i;
            this.expectKey = false;
          } else if (this.inItems && this.depth === ITEMS_DEPTH) {
            this.itemStart = i;
          }
          break;
        case OPEN_OBJECT:
        case OPEN_ARRAY:
          this.depth++;
          if (this.depth === 1) {
            if (c !== OPEN_OBJECT) throw new ListDecodeError('the response body is not a JSON object');
            this.expectKey = true;
          } else if (this.depth === 2 && c === OPEN_ARRAY && this.lastKeyIsItems) {
            // Everything up to and including '[' goes to the envelope; the items go to their own parses.
            this.flushEnvelope(i + 1);
            this.inItems = true;
          } else if (this.inItems && this.depth === ITEMS_DEPTH + 1) {
            this.itemStart = i;
            this.lastKeyIsItems = false;
            i = this.scanItem(buf, i + 1, n);
            continue;
          }
          this.lastKeyIsItems = false;
          break;
        case CLOSE_OBJECT:
        case CLOSE_ARRAY:
          this.depth--;
          if (this.depth < 0) throw new ListDecodeError('the response body has an unbalanced bracket');
          if (this.inItems && this.depth === ITEMS_DEPTH && this.itemStart >= 0) {
            this.finishItem(buf, i + 1);
          } else if (this.inItems && this.depth === ITEMS_DEPTH - 1) {
            // The items array closes: the envelope resumes with its ']'.
            this.inItems = false;
            this.start = i;
          }
          break;
        case COMMA:
          if (this.depth === 1) this.expectKey = true;
          break;
        default:
          // A scalar element of the items array (null, a number, true/false).
          if (this.inItems && this.depth === ITEMS_DEPTH && c > 0x20) {
            const e = scalarEnd(buf, i);
            if (e < 0) {
              // It may continue in the next chunk: resume here then.
              this.pos = i;
              return;
            }
            this.itemStart = i;
            this.finishItem(buf, e);
            i = e;
            continue;
          }
      }
      i++;
    }
    this.pos = i;
    // Between items, scanned bytes are separators: nothing to keep.
    if (this.inItems && this.itemStart < 0 && !this.inString) this.start = i;
  }

  /**
   * Scans an object or array item from i (outside any string) with the depth in a local and strings skipped inline:
   * most are short keys, for which a native indexOf call costs more than the loop, so only a string longer than
   * LONG_STRING is searched with indexOf. Returns where it stopped: after the item, once it closed (and was parsed);
   * at the end of the buffer; or just inside a string the buffer cuts, which the general loop resumes on the next
   * write (the whole item stays in `pending` until it is parsed).
   */
  private scanItem(buf: Buffer, i: number, n: number): number {
    let depth = this.depth;
    while (i < n) {
      const c = buf[i] as number;
      if (c === QUOTE) {
        const end = stringEnd(buf, i + 1, n);
        if (end < 0) {
          this.depth = depth;
          this.inString = true;
          return i + 1;
        }
        // A key of the item or of its metadata: the two that lead to metadata.managedFields.
        if (this.omitManagedFields && depth <= METADATA_DEPTH && end + 1 < n && buf[end] === COLON) {
          this.noteKey(buf, i, end, depth);
        }
        i = end;
        continue;
      }
      if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        depth++;
      } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
        --depth;
        if (depth === METADATA_DEPTH && this.cutFrom >= 0 && this.cutTo < 0) this.endCut(buf, i, n);
        else if (depth === ITEM_DEPTH) this.inMetadata = false;
        else if (depth === ITEMS_DEPTH) {
          this.depth = depth;
          this.finishItem(buf, i + 1);
          return i + 1;
        }
      }
      i++;
    }
    this.depth = depth;
    return n;
  }

  // The key [start, end) at `depth`, followed by a colon at end: metadata's opening, or managedFields' array.
  private noteKey(buf: Buffer, start: number, end: number, depth: number): void {
    const len = end - start;
    const value = buf[end + 1];
    if (depth === ITEM_DEPTH) {
      if (len === METADATA_KEY.length && value === OPEN_OBJECT && buf.compare(METADATA_KEY, 0, len, start, end) === 0)
        this.inMetadata = true;
      return;
    }
    if (!this.inMetadata || len !== MANAGED_FIELDS_KEY.length || value !== OPEN_ARRAY) return;
    if (buf.compare(MANAGED_FIELDS_KEY, 0, len, start, end) !== 0) return;
    // Left out with the comma before it, or, as the first member, with the one after it.
    const before = buf[start - 1];
    if (before === COMMA) this.cutFrom = start - 1;
    else if (before === OPEN_OBJECT) this.cutFrom = start;
    else return;
    this.cutFirstMember = before === OPEN_OBJECT;
  }

  // managedFields' array closes at i.
  private endCut(buf: Buffer, i: number, n: number): void {
    if (!this.cutFirstMember) {
      this.cutTo = i + 1;
      return;
    }
    const next = i + 1 < n ? buf[i + 1] : undefined;
    if (next === COMMA) this.cutTo = i + 2;
    else if (next === CLOSE_OBJECT) this.cutTo = i + 1;
    else this.cutFrom = -1; // cannot tell yet: the item is parsed whole
  }

  private finishItem(buf: Buffer, end: number): void {
    let from = this.itemStart;
    // An object item with members and without its own apiVersion first (custom resources have theirs) is given them.
    let prefix = '';
    if (this.typePrefix !== '' && buf[from] === OPEN_OBJECT) {
      const first = skipSpace(buf, from + 1, end);
      if (buf[first] !== CLOSE_OBJECT && !startsWith(buf, first, end, API_VERSION_KEY)) {
        prefix = this.typePrefix;
        from++;
      }
    }
    let text: string;
    if (this.cutTo > this.cutFrom && this.cutFrom >= from) {
      text = prefix + buf.toString('utf8', from, this.cutFrom) + buf.toString('utf8', this.cutTo, end);
    } else {
      text = prefix + buf.toString('utf8', from, end);
    }
    this.inMetadata = false;
    this.cutFrom = -1;
    this.cutTo = -1;
    const item: unknown = JSON.parse(text);
    this.items.push(this.mapItem ? this.mapItem(item) : item);
    this.itemStart = -1;
    this.start = end;
  }

  private flushEnvelope(end: number): void {
    if (end > this.start) this.envelope.push(Buffer.from(this.pending.subarray(this.start, end)));
    this.start = end;
  }
}

const API_VERSION_KEY = Buffer.from('"apiVersion"');

// The index of the first byte from i on that is not JSON whitespace (end if none).
function skipSpace(buf: Buffer, i: number, end: number): number {
  while (i < end && (buf[i] === 0x20 || buf[i] === 0x0a || buf[i] === 0x0d || buf[i] === 0x09)) i++;
  return i;
}

function startsWith(buf: Buffer, i: number, end: number, bytes: Buffer): boolean {
  return i + bytes.length <= end && bytes.compare(buf, i, i + bytes.length) === 0;
}

// Past this many bytes without its closing quote, a string is searched with indexOf rather than byte by byte.
const LONG_STRING = 32;

/**
 * The index just past the closing quote of a string whose contents start at j, or -1 when the buffer (or an escape)
 * ends first. A backslash escapes the byte after it, so j is never an escaped byte.
 */
function stringEnd(buf: Buffer, j: number, n: number): number {
  const short = Math.min(n, j + LONG_STRING);
  while (j < short) {
    const s = buf[j] as number;
    if (s === QUOTE) return j + 1;
    j += s === BACKSLASH ? 2 : 1;
  }
  if (j >= n) return -1;
  for (;;) {
    const q = buf.indexOf(QUOTE, j);
    if (q < 0) return -1;
    // Escaped when an odd run of backslashes precedes it, counted back to j (bytes before j are settled).
    let b = q - 1;
    while (b >= j && buf[b] === BACKSLASH) b--;
    if ((q - 1 - b) % 2 === 0) return q + 1;
    j = q + 1;
  }
}

/** End (exclusive) of a scalar starting at i, or -1 when the buffer ends first. */
function scalarEnd(buf: Buffer, i: number): number {
  for (let j = i; j < buf.length; j++) {
    const c = buf[j] as number;
    if (c === COMMA || c === CLOSE_ARRAY || c <= 0x20) return j;
  }
  return -1;
}
