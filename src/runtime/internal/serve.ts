/** HTTP server plumbing shared by the probe, metrics and webhook servers: bind addresses, serving until a signal, closing. */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Logger } from '../log/index.js';
import { ConfigurationError } from '../errors.js';
import { untilAborted } from './abort-fanout.js';

/** A server the manager runs: something that listens and can be closed, such as http.Server or https.Server. */
export interface ListeningServer {
  /** Starts listening on host:port and calls cb once bound. */
  listen(port: number, host: string | undefined, cb: () => void): unknown;
  /** Stops accepting connections. */
  close(cb?: (err?: Error) => void): unknown;
  /** The bound address. */
  address(): AddressInfo | string | null;
  /** Listens once for a listen error. */
  once(event: 'error', cb: (err: Error) => void): unknown;
  /** Removes an error listener. */
  off(event: 'error', cb: (err: Error) => void): unknown;
}

/** True when a bind address means "do not serve" ('0' or empty, as controller-runtime's options). */
export function isDisabledAddress(addr: string | undefined): boolean {
  return addr === undefined || addr === '' || addr === '0';
}

/** Splits ':8080', '127.0.0.1:8080' or '[::1]:8080'; an empty host listens on every interface. */
export function parseBindAddress(addr: string): { host: string | undefined; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(addr.trim());
  if (!m) throw new ConfigurationError(`invalid bind address "${addr}": want [host]:port`);
  const host = m[1] ?? m[2];
  const port = Number(m[3]);
  if (port > 65535) throw new ConfigurationError(`invalid bind address "${addr}": port out of range`);
  return { host: host === '' ? undefined : host, port };
}

/** How serveUntil runs a server. */
export interface ServeOptions {
  /** '[host]:port'. */
  bindAddress: string;
  /** Serving stops when it aborts. */
  signal: AbortSignal;
  /** Where listening and errors are logged. */
  log: Logger;
  /** Gets the bound address (useful with port 0). */
  onListening?: (addr: AddressInfo) => void;
}

/**
 * Runs `server` on the bind address until the signal aborts, then closes it (and its idle and active connections)
 * and resolves. Rejects if listening fails.
 */
export async function serveUntil(
  server: ListeningServer,
  { bindAddress, signal, log, onListening }: ServeOptions,
): Promise<void> {
  if (signal.aborted) return;
  const { host, port } = parseBindAddress(bindAddress);
  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error): void => reject(err);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const addr = server.address();
  if (addr !== null && typeof addr === 'object') {
    onListening?.(addr);
    log.info('Serving', { address: `${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}` });
  }
  await untilAborted(signal);
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    // Keep-alive sockets would hold close() open; drop them (http2 servers have no such method).
    const s = server as Partial<Server>;
    s.closeIdleConnections?.();
    s.closeAllConnections?.();
  });
}

/** In-flight requests get this long to finish when a server stops gracefully. */
const SHUTDOWN_GRACE_MS = 5_000;

/** Stops accepting connections, lets requests in flight finish for a short while, then drops what is left. */
export async function closeGracefully(server: Server): Promise<void> {
  await new Promise<void>((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}
