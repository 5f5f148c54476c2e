import type { IncomingMessage, ServerResponse } from 'node:http';

/** A health or readiness check: resolves when healthy, throws (or rejects) with the reason when not. */
export type Checker = () => void | Promise<void>;

/** Always healthy: answers as long as the process serves HTTP (healthz.Ping). */
export const ping: Checker = () => {};

interface CheckStatus {
  name: string;
  healthy: boolean;
  excluded: boolean;
}

async function run(check: Checker): Promise<void> {
  await check();
}

/**
 * Serves one endpoint (/healthz or /readyz) the way controller-runtime's healthz.Handler does: the bare path runs
 * every check (minus ?exclude=name) and answers 200 "ok" or 500 with a [+]/[-] list; `/<path>/<name>` runs one check;
 * ?verbose lists every check on success too. Failure reasons are logged, not served.
 */
export class HealthzHandler {
  constructor(
    private readonly path: string,
    private readonly checks: ReadonlyMap<string, Checker>,
    private readonly onFailure: (name: string, err: unknown) => void = () => {},
  ) {}

  /** Returns false when the request is not for this endpoint. */
  async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const p = url.pathname.replace(/\/+$/, '');
    if (p === this.path) {
      await this.serveAggregated(res, url);
      return true;
    }
    if (p.startsWith(`${this.path}/`)) {
      await this.serveOne(res, decodeURIComponent(p.slice(this.path.length + 1)));
      return true;
    }
    return false;
  }

  private async serveOne(res: ServerResponse, name: string): Promise<void> {
    const check = this.checks.get(name) ?? (name === 'ping' && this.checks.size === 0 ? ping : undefined);
    if (!check) return reply(res, 404, '404 page not found\n');
    try {
      await run(check);
      reply(res, 200, 'ok');
    } catch (err) {
      this.onFailure(name, err);
      reply(res, 500, `internal server error: ${err instanceof Error ? err.message : String(err)}\n`);
    }
  }

  private async serveAggregated(res: ServerResponse, url: URL): Promise<void> {
    const excluded = new Set(
      url.searchParams
        .getAll('exclude')
        .flatMap((v) => v.split(','))
        .map((v) => v.trim()),
    );
    const entries = [...this.checks.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const statuses: CheckStatus[] = await Promise.all(
      entries.map(async ([name, check]): Promise<CheckStatus> => {
        if (excluded.has(name)) return { name, healthy: true, excluded: true };
        try {
          await run(check);
          return { name, healthy: true, excluded: false };
        } catch (err) {
          this.onFailure(name, err);
          return { name, healthy: false, excluded: false };
        }
      }),
    );
    if (statuses.length === 0) statuses.push({ name: 'ping', healthy: true, excluded: false });
    const failed = statuses.some((s) => !s.healthy);
    const endpoint = this.path.replace(/^\//, '');
    if (!failed && !url.searchParams.has('verbose')) return reply(res, 200, 'ok');
    const lines = statuses.map((s) =>
      s.excluded ? `[+]${s.name} excluded: ok` : s.healthy ? `[+]${s.name} ok` : `[-]${s.name} failed: reason withheld`,
    );
    lines.push(failed ? `${endpoint} check failed` : `${endpoint} check passed`);
    reply(res, failed ? 500 : 200, lines.join('\n') + '\n');
  }
}

function reply(res: ServerResponse, code: number, body: string): void {
  res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  res.end(body);
}
