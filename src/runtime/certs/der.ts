/**
 * The few DER (ITU-T X.690) encodings an X.509 certificate needs. Certificates are built here rather than with an
 * X.509 library because loading one (@peculiar/x509 with its ASN.1 schema stack) costs an operator process 16 MiB of
 * RSS, a quarter of its memory budget, for the one certificate it makes at start.
 */

/** One encoded DER element. */
export type Der = Buffer;

function lengthOctets(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** A tag-length-value element with the given identifier octet. */
export function tlv(tag: number, content: Buffer): Der {
  return Buffer.concat([Buffer.from([tag]), lengthOctets(content.length), content]);
}

export const sequence = (...items: Der[]): Der => tlv(0x30, Buffer.concat(items));

/** SET OF, with its elements sorted by their encodings as DER requires. */
export const set = (...items: Der[]): Der => tlv(0x31, Buffer.concat([...items].sort(Buffer.compare)));

export const boolean = (v: boolean): Der => tlv(0x01, Buffer.from([v ? 0xff : 0x00]));

export const nullValue = (): Der => tlv(0x05, Buffer.alloc(0));

export const octetString = (b: Buffer): Der => tlv(0x04, b);

export const utf8String = (s: string): Der => tlv(0x0c, Buffer.from(s, 'utf8'));

/** An INTEGER from its unsigned big-endian magnitude (a leading zero is added when the top bit is set). */
export function unsignedInteger(magnitude: Buffer): Der {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  const m = magnitude.subarray(start);
  return tlv(0x02, (m[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), m]) : Buffer.from(m));
}

export const smallInteger = (n: number): Der => unsignedInteger(Buffer.from([n]));

/** A BIT STRING holding whole bytes. */
export const bitString = (b: Buffer): Der => tlv(0x03, Buffer.concat([Buffer.from([0]), b]));

/** A BIT STRING of named bits (bit 0 is the most significant of the first byte), trailing zero bits dropped. */
export function namedBits(bits: readonly number[]): Der {
  const top = Math.max(...bits);
  const bytes = Buffer.alloc(Math.floor(top / 8) + 1);
  for (const b of bits) bytes[b >> 3]! |= 0x80 >> (b & 7);
  const unused = 7 - (top & 7);
  return tlv(0x03, Buffer.concat([Buffer.from([unused]), bytes]));
}

/** An OBJECT IDENTIFIER from its dotted form. */
export function oid(dotted: string): Der {
  const arcs = dotted.split('.').map(Number);
  const out: number[] = [(arcs[0] ?? 0) * 40 + (arcs[1] ?? 0)];
  for (const arc of arcs.slice(2)) {
    const chunk: number[] = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift(0x80 | (v & 0x7f));
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

/** RFC 5280's Time: UTCTime through 2049, GeneralizedTime after, always in whole seconds UTC. */
export function time(d: Date): Der {
  const iso = d.toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
  const digits = iso.slice(0, 19).replace(/[-:T]/g, '') + 'Z';
  const year = d.getUTCFullYear();
  return year < 2050 ? tlv(0x17, Buffer.from(digits.slice(2), 'ascii')) : tlv(0x18, Buffer.from(digits, 'ascii'));
}

/** [n] EXPLICIT: a constructed context-specific tag around one element. */
export const explicit = (n: number, inner: Der): Der => tlv(0xa0 | n, inner);

/** [n] IMPLICIT for a primitive value: the content with a context-specific tag. */
export const implicitPrimitive = (n: number, content: Buffer): Der => tlv(0x80 | n, content);

/** Wraps DER in a PEM block with 64-character lines. */
export function pem(label: string, der: Buffer): string {
  const b64 = der.toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN ${label}-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END ${label}-----\n`;
}
