// Decodes a List response while it arrives: each element of the top-level "items" array is parsed as soon as its
// last byte is in, so parsing overlaps the API server's encoding (it streams large lists) instead of starting after
// the whole body, and the body never exists as one large buffer and string. The rest of the document (apiVersion,
// kind, metadata) is parsed at the end with "items" left empty. An item function, if given, sees each item as soon as
// it is parsed: an informer's transform then drops what it does not keep while it is young, instead of that garbage
// surviving (and being copied by every scavenge) until the whole list is in.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;

const ITEMS_KEY = Buffer.from('"items"');
// The items array sits in the top-level object: depth 1 is the object, 2 the array, 3 inside an object item.
const ITEMS_DEPTH = 2;

/** Thrown for a body that is not a JSON object; the caller reports it with the request. */
export class ListDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ListDecodeError';
  }
}

export interface DecodedList {
  /** The document without its items (its "items" member is an empty array if it had one). */
  envelope: Record<string, unknown>;
  items: unknown[];
}

/**
 * A byte-level JSON scanner that tracks nesting and strings only: the structural bytes it looks for are ASCII, and
 * UTF-8 continuation bytes are never ASCII, so it needs no decoding. Feed chunks with write(), then call end().
 */
export class ListStreamDecoder {
  readonly items: unknown[] = [];
  /** @param mapItem applied to each item as it is parsed; what it returns is kept in its place. */
  constructor(private readonly mapItem?: (item: unknown) => unknown) {}

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

  write(chunk: Buffer): void {
    // Keep only the unconsumed tail of the previous chunks: at most one item or one envelope stretch.
    this.pending = this.start < this.pending.length ? Buffer.concat([this.pending.subarray(this.start), chunk]) : chunk;
    this.pos -= this.start;
    if (this.keyStart >= 0) this.keyStart -= this.start;
    if (this.itemStart >= 0) this.itemStart -= this.start;
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

  private finishItem(buf: Buffer, end: number): void {
    const item: unknown = JSON.parse(buf.toString('utf8', this.itemStart, end));
    this.items.push(this.mapItem ? this.mapItem(item) : item);
    this.itemStart = -1;
    this.start = end;
  }

  private flushEnvelope(end: number): void {
    if (end > this.start) this.envelope.push(Buffer.from(this.pending.subarray(this.start, end)));
    this.start = end;
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
