/*
Copyright 2026 The trust-manager port's authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

import { X509Certificate, createHash } from 'node:crypto';

// trust-manager's util.CertPool (pkg/util/cert_pool.go): certificates from PEM, strictly checked, deduplicated by the
// SHA-256 of their DER and written back ordered by that hash, so that the same set always makes the same bundle.

/** One PEM block as Go's encoding/pem decodes it: its type, headers and DER bytes. */
interface PemBlock {
  type: string;
  headers: Record<string, string>;
  bytes: Buffer;
}

const BEGIN = '-----BEGIN ';
const END = '-----END ';
const TAIL = '-----';

/**
 * The next PEM block in `data` and what follows it (Go's pem.Decode): text before a block is skipped; a block whose
 * end line or base64 is broken is skipped and the search goes on after its begin line. No block: undefined.
 */
export function decodePem(data: string): { block: PemBlock; rest: string } | undefined {
  let rest = data;
  for (;;) {
    const start = rest.startsWith(BEGIN) ? 0 : rest.indexOf(`\n${BEGIN}`);
    if (start < 0) return undefined;
    const from = start === 0 ? 0 : start + 1;
    const lineEnd = rest.indexOf('\n', from);
    const typeLine = (lineEnd < 0 ? rest.slice(from) : rest.slice(from, lineEnd)).replace(/[ \t\r]+$/, '');
    const after = lineEnd < 0 ? '' : rest.slice(lineEnd + 1);
    if (!typeLine.endsWith(TAIL) || typeLine.length < BEGIN.length + TAIL.length) {
      rest = after;
      continue;
    }
    const type = typeLine.slice(BEGIN.length, -TAIL.length);
    const decoded = decodeBody(after, type);
    if (decoded) return decoded;
    rest = after;
  }
}

function decodeBody(body: string, type: string): { block: PemBlock; rest: string } | undefined {
  const headers: Record<string, string> = {};
  let rest = body;
  // Headers: "Key: value" lines up to a blank line, as RFC 1421 has them.
  for (;;) {
    const nl = rest.indexOf('\n');
    if (nl < 0) break;
    const line = rest.slice(0, nl).replace(/\r$/, '');
    const colon = line.indexOf(':');
    if (colon < 0) break;
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
    rest = rest.slice(nl + 1);
  }
  if (Object.keys(headers).length > 0 && /^\r?\n/.test(rest)) rest = rest.replace(/^\r?\n/, '');
  const endLine = `${END}${type}${TAIL}`;
  const endAt = rest.startsWith(END) ? 0 : rest.indexOf(`\n${END}`);
  if (endAt < 0) return undefined;
  const endFrom = endAt === 0 ? 0 : endAt + 1;
  const lineEnd = rest.indexOf('\n', endFrom);
  const line = (lineEnd < 0 ? rest.slice(endFrom) : rest.slice(endFrom, lineEnd)).replace(/[ \t\r]+$/, '');
  if (line !== endLine) return undefined;
  const base64 = rest.slice(0, endAt).replace(/[\r\n\t ]/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64) || base64.length % 4 !== 0) return undefined;
  return {
    block: { type, headers, bytes: Buffer.from(base64, 'base64') },
    rest: lineEnd < 0 ? '' : rest.slice(lineEnd + 1),
  };
}

/** Go's pem.Encode of a CERTIFICATE block: base64 in lines of 64. */
export function encodeCertificate(der: Buffer): string {
  const b64 = der.toString('base64');
  const lines: string[] = [];
  for (let i = 0; i < b64.length; i += 64) lines.push(b64.slice(i, i + 64));
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}

/** Which certificates a pool refuses: expired ones, or ones that are not CAs (the original's two flags). */
export interface CertPoolOptions {
  filterExpiredCerts?: boolean;
  filterNonCACerts?: boolean;
  /** The clock of the expiry filter. */
  now?: () => Date;
  /** Told about each certificate a filter refused. */
  onIgnored?: (why: string, subject: string) => void;
}

/** A set of certificates, keyed by the SHA-256 of their DER. */
export class CertPool {
  private readonly certificates = new Map<string, X509Certificate>();

  constructor(private readonly opts: CertPoolOptions = {}) {}

  /**
   * Adds every certificate of `pemData`; throws when a block is not a CERTIFICATE, has headers, or does not parse, so
   * that a private key pasted by mistake is never distributed. Text that holds no block adds nothing.
   */
  addCertsFromPEM(pemData: string | Buffer | undefined): void {
    if (pemData === undefined) throw new Error("certificate data can't be nil");
    let rest = typeof pemData === 'string' ? pemData : pemData.toString('latin1');
    for (;;) {
      const next = decodePem(rest);
      if (!next) return;
      rest = next.rest;
      const { block } = next;
      if (block.type !== 'CERTIFICATE') {
        throw new Error(
          `invalid PEM block in bundle: only CERTIFICATE blocks are permitted but found '${block.type}'`,
        );
      }
      if (Object.keys(block.headers).length !== 0) {
        throw new Error('invalid PEM block in bundle; blocks are not permitted to have PEM headers');
      }
      let cert: X509Certificate;
      try {
        cert = new X509Certificate(block.bytes);
      } catch (err) {
        throw new Error(`invalid PEM block in bundle; invalid PEM certificate: ${(err as Error).message}`);
      }
      this.addCert(cert);
    }
  }

  /** Adds `cert` unless a filter refuses it; true when added (or already there). */
  addCert(cert: X509Certificate): boolean {
    if (this.opts.filterExpiredCerts && (this.opts.now?.() ?? new Date()) > new Date(cert.validTo)) {
      this.opts.onIgnored?.('ignoring expired certificate', cert.subject);
      return false;
    }
    if (this.opts.filterNonCACerts && !cert.ca) {
      this.opts.onIgnored?.('ignoring non-CA certificate', cert.subject);
      return false;
    }
    this.certificates.set(createHash('sha256').update(cert.raw).digest('hex'), cert);
    return true;
  }

  /** How many distinct certificates the pool holds. */
  size(): number {
    return this.certificates.size;
  }

  /** The certificates ordered by the hash of their DER. */
  ordered(): X509Certificate[] {
    return [...this.certificates.keys()].sort().map((hash) => this.certificates.get(hash)!);
  }

  /** The bundle: every certificate as PEM, in hash order, without a trailing newline ('' when empty). */
  pem(): string {
    return this.ordered()
      .map((c) => encodeCertificate(c.raw))
      .join('')
      .trim();
  }
}
