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

// Go's encoding/base64.StdEncoding.DecodeString, which the original decodes each sealed value with: strict (Buffer's
// own decoder skips what it does not know), newlines ignored, and Go's error message.

const ALPHABET = /^[A-Za-z0-9+/]$/;

/** Decodes padded standard base64, or throws `illegal base64 data at input byte N` as Go does. */
export function decodeStdBase64(input: string): Buffer {
  const s = input.replace(/[\r\n]/g, '');
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (ALPHABET.test(c)) continue;
    // Padding is one or two '=' that end the last group of four.
    const padded = c === '=' && s.length % 4 === 0 && i >= s.length - 2 && /^=+$/.test(s.slice(i));
    if (!padded) throw new Error(`illegal base64 data at input byte ${i}`);
    break;
  }
  if (s.length % 4 !== 0) throw new Error(`illegal base64 data at input byte ${s.length - (s.length % 4)}`);
  return Buffer.from(s, 'base64');
}
