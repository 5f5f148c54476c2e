import { createServer } from 'node:net';

/** Ports handed out recently by this process, so two environments started together don't get the same one. */
const recent = new Map<number, number>();
const RECENT_MS = 2 * 60 * 1000;

/**
 * A loopback port that was free a moment ago: bind 127.0.0.1:0, read the port, close. Another
 * process may still take it before our server binds; callers retry the start when that happens.
 */
export async function freePort(): Promise<number> {
  const now = Date.now();
  for (const [port, at] of recent) if (now - at > RECENT_MS) recent.delete(port);
  for (let i = 0; i < 100; i++) {
    const port = await new Promise<number>((resolve, reject) => {
      const srv = createServer();
      srv.once('error', reject);
      srv.listen(0, '127.0.0.1', () => {
        const addr = srv.address();
        srv.close(() => (addr && typeof addr === 'object' ? resolve(addr.port) : reject(new Error('no port'))));
      });
    });
    if (!recent.has(port)) {
      recent.set(port, now);
      return port;
    }
  }
  throw new Error('could not find a free loopback port');
}
