import type { Readable } from 'node:stream';
import { ApiError } from './errors.js';
import type { KubeObject, Status, WatchEvent } from './types.js';
import { TransportError } from '../errors.js';

/**
 * Decodes a watch response (one JSON event per line) into events. Ends when the server closes the stream; the
 * caller ends it early by destroying the response (or breaking out of the loop, which destroys it).
 */
export async function* decodeWatchStream<T extends KubeObject>(res: Readable): AsyncGenerator<WatchEvent<T>> {
  res.setEncoding('utf8');
  let pending = '';
  try {
    for await (const chunk of res as AsyncIterable<string>) {
      let start = 0;
      let nl = chunk.indexOf('\n');
      if (nl < 0) {
        pending += chunk;
        continue;
      }
      while (nl >= 0) {
        const line = pending === '' ? chunk.slice(start, nl) : pending + chunk.slice(start, nl);
        pending = '';
        if (line.trim() !== '') yield parseEvent<T>(line);
        start = nl + 1;
        nl = chunk.indexOf('\n', start);
      }
      pending = chunk.slice(start);
    }
    if (pending.trim() !== '') yield parseEvent<T>(pending);
  } finally {
    // Ended early (the caller broke off, or an error): the connection goes, as the rest of the stream will not be read.
    if (!res.readableEnded) res.destroy();
  }
}

function parseEvent<T extends KubeObject>(line: string): WatchEvent<T> {
  const ev = JSON.parse(line) as { type?: unknown; object?: unknown };
  if (typeof ev.type !== 'string' || typeof ev.object !== 'object' || ev.object === null) {
    throw new TransportError(`malformed watch event: ${line.slice(0, 200)}`, 'BadResponse');
  }
  return ev as WatchEvent<T>;
}

/** The ApiError a watch ERROR event stands for (410 Expired when the resourceVersion is too old). */
export function errorFromWatchEvent(status: Status): ApiError {
  return new ApiError(status, status.code ?? 500);
}
