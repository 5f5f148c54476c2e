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

// Go's time.ParseDuration, for the original's duration flags (--key-renew-period=720h, --key-ttl=87600h0m0s).

const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds in a Go duration such as `1h30m` or `0`; throws `time: invalid duration "<s>"` as Go does. */
export function parseGoDuration(s: string): number {
  const invalid = new Error(`time: invalid duration "${s}"`);
  let rest = s;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') throw invalid;
  let total = 0;
  const part = /^(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/;
  while (rest !== '') {
    const m = part.exec(rest);
    if (!m) throw invalid;
    total += Number(m[1]) * UNITS[m[2]!]!;
    rest = rest.slice(m[0].length);
  }
  return sign * total;
}
