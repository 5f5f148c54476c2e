/*
Copyright 2026 The Sealed Secrets port's authors.

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

// The original's HTTP API (pkg/controller/server.go), which kubeseal calls through the API server's service proxy:
// the newest key's certificate to seal for (/v1/cert.pem), whether the controller can open a SealedSecret
// (/v1/verify), the same SealedSecret sealed again for the newest key (/v1/rotate), and its health.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPublicKey } from 'node:crypto';
import { parseAllDocuments } from 'yaml';
import type { Logger } from '@kubescaffold/runtime';
import type { Runnable } from '@kubescaffold/runtime/manager';
import type { SealedSecret } from '../../api/v1alpha1/sealedsecret_types.js';
import { sealValue } from '../crypto/seal.js';
import type { KeyRegistry } from '../keys/registry.js';
import { unseal, validateEncryptedData } from '../unseal/unseal.js';

/** What the server serves from. */
export interface SealingServerDeps {
  keys: KeyRegistry;
  /** --accept-deprecated-v1-data, for /v1/rotate. */
  acceptV1Data: boolean;
  log: Logger;
}

/** The server as a runnable of the manager, on every replica (it serves the keys, which every replica has). */
export function sealingServer(deps: SealingServerDeps, listenAddr: string): Runnable & { address(): AddressInfo | undefined } {
  let server: Server | undefined;
  return {
    needLeaderElection: () => false,
    address: () => (server?.address() as AddressInfo | null) ?? undefined,
    async start(signal: AbortSignal): Promise<void> {
      server = createServer((req, res) => {
        handle(deps, req, res).catch((err: unknown) => {
          deps.log.error(err, 'Error handling request', { path: req.url });
          if (!res.headersSent) res.writeHead(500);
          res.end();
        });
      });
      const { host, port } = splitAddr(listenAddr);
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(port, host, resolve);
      });
      deps.log.info('HTTP server serving', { addr: listenAddr });
      if (!signal.aborted) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      await new Promise((resolve) => server!.close(resolve));
    },
  };
}

async function handle(deps: SealingServerDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  switch (path) {
    case '/healthz':
    case '/readyz':
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' }).end('ok\n');
      return;
    case '/v1/cert.pem': {
      const latest = deps.keys.latest();
      if (!latest) {
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('cannot get certificate\n');
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/x-pem-file' }).end(latest.certPem);
      return;
    }
    case '/v1/verify': {
      // 200 when every value opens with one of the keys, 409 when one does not; templates are not rendered, so that
      // the endpoint cannot be used to learn a value.
      const ss = decodeSealedSecret(await readBody(req));
      res.writeHead(opens(ss, deps) ? 200 : 409).end();
      return;
    }
    case '/v1/rotate': {
      const ss = decodeSealedSecret(await readBody(req));
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(reseal(ss, deps)));
      return;
    }
    default:
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('404 page not found\n');
  }
}

function opens(ss: SealedSecret, deps: SealingServerDeps): boolean {
  try {
    validateEncryptedData(ss, deps.keys.privateKeys(), { acceptV1Data: deps.acceptV1Data });
    return true;
  } catch {
    return false;
  }
}

/** The SealedSecret sealed again for the newest key, in its original scope (the original's Rotate). */
function reseal(ss: SealedSecret, deps: SealingServerDeps): SealedSecret {
  const latest = deps.keys.latest();
  if (!latest) throw new Error('error getting latest private key. key registry has no keys');
  // The template's metadata decides the scope of the new values: align it with the object's, as the original does.
  const template = { ...ss.spec.template, metadata: { ...ss.metadata } };
  const secret = unseal({ ...ss, spec: { ...ss.spec, template } }, deps.keys.privateKeys(), {
    acceptV1Data: deps.acceptV1Data,
    renderTemplate: false,
  });
  const publicKey = createPublicKey(latest.privateKey);
  const meta = { name: ss.metadata?.name, namespace: ss.metadata?.namespace, annotations: ss.metadata?.annotations };
  const encryptedData = Object.fromEntries(
    Object.entries(secret.data ?? {}).map(([k, v]) => [k, sealValue(publicKey, meta, Buffer.from(v, 'base64'))]),
  );
  const { ownerReferences: _owners, ...templateMeta } = secret.metadata ?? {};
  return {
    apiVersion: 'bitnami.com/v1alpha1',
    kind: 'SealedSecret',
    metadata: meta,
    spec: { template: { metadata: templateMeta, type: secret.type, immutable: secret.immutable }, encryptedData },
  };
}

/** One SealedSecret, as JSON or YAML; more than one document is refused, as the original refuses it. */
function decodeSealedSecret(body: string): SealedSecret {
  const docs = parseAllDocuments(body);
  if (!Array.isArray(docs) || docs.length !== 1) throw new Error('Multiple documents are not supported');
  const obj = docs[0]!.toJS() as SealedSecret;
  if (obj?.kind !== 'SealedSecret') throw new Error(`unexpected resource type: ${String(obj?.kind)}`);
  return obj;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

// Go's listen address: host:port, with an empty host for every interface.
function splitAddr(addr: string): { host: string | undefined; port: number } {
  const i = addr.lastIndexOf(':');
  const host = addr.slice(0, i).replace(/^\[|\]$/g, '');
  return { host: host === '' ? undefined : host, port: Number(addr.slice(i + 1)) };
}
