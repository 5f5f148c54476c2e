// The API server's Warning response headers (RFC 7234 §5.5, as Kubernetes uses them: `299 - "text"`), parsed as
// apimachinery's net.ParseWarningHeaders does and handed to a WarningHandler as client-go's rest client does.
import type { Logger } from '../log/logger.js';

/** One Warning header value: the warn-code (the API server always sends 299), the agent ('-') and the text. */
export interface Warning {
  /** The three-digit warn-code; Kubernetes sends 299 ("miscellaneous persistent warning"). */
  code: number;
  /** The warn-agent: the server's host, or '-' (what the API server sends). */
  agent: string;
  /** The warning, e.g. `unknown field "spec.colour"` or a deprecated API's notice. */
  text: string;
}

/**
 * Receives each warning of each response (client-go's rest.WarningHandler). Called synchronously, before the response
 * is returned to the caller; it must not throw. Given as a client's `warningHandler` option (see ClientOptions).
 */
export type WarningHandler = (warning: Warning) => void;

/** Ignores every warning (client-go's rest.NoWarnings): pass it as `warningHandler` to silence them. */
export const noWarnings: WarningHandler = () => {};

/**
 * Logs each warning with code 299 at info level under the name KubeAPIWarningLogger, each distinct text only once per
 * handler (controller-runtime's default: client-go's WarningWriter with Deduplicate). A client made without a
 * `warningHandler` uses one of these over the root logger; its set of texts seen lives as long as the client.
 */
export function warningLogger(log: Logger, opts: { deduplicate?: boolean } = {}): WarningHandler {
  const seen = new Set<string>();
  const named = log.withName('KubeAPIWarningLogger');
  return ({ code, text }) => {
    if (code !== 299 || text === '') return;
    if (opts.deduplicate !== false) {
      if (seen.has(text)) return;
      seen.add(text);
    }
    named.info(text);
  };
}

/**
 * The warnings in the values of Warning headers: each value may list several, comma-separated, each
 * `code SP agent SP "quoted text" [SP "date"]`. A malformed value yields the warnings before the fault, as
 * apimachinery's parser does.
 */
export function parseWarningHeaders(values: readonly string[]): Warning[] {
  const out: Warning[] = [];
  for (const value of values) parseOne(value, out);
  return out;
}

function parseOne(value: string, out: Warning[]): void {
  let s = value.trim();
  while (s !== '') {
    const head = /^(\d{3}) ([^\s"]+) "/.exec(s);
    if (!head) return;
    const quoted = readQuoted(s, head[0].length - 1);
    if (!quoted) return;
    out.push({ code: Number(head[1]), agent: head[2]!, text: quoted.text });
    s = s.slice(quoted.end).trimStart();
    // An optional quoted warn-date, which we do not use.
    if (s.startsWith('"')) {
      const date = readQuoted(s, 0);
      if (!date) return;
      s = s.slice(date.end).trimStart();
    }
    if (s === '') return;
    if (!s.startsWith(',')) return;
    s = s.slice(1).trimStart();
  }
}

// The quoted-string starting at s[start] === '"', with backslash escapes undone; undefined when unterminated.
function readQuoted(s: string, start: number): { text: string; end: number } | undefined {
  let text = '';
  for (let i = start + 1; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\\') {
      if (i + 1 >= s.length) return undefined;
      text += s[++i];
    } else if (c === '"') {
      return { text, end: i + 1 };
    } else {
      text += c;
    }
  }
  return undefined;
}
