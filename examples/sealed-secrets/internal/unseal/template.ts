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

// spec.template.data values are Go text/template templates over the unsealed values (with sprig's functions). This
// port renders the part of that language that templates of Secrets use to compose values: text, and actions that
// print a value, `{{ .name }}` or `{{ index . "name-with-dashes" }}`, with Go's `{{-`/`-}}` trimming. Anything else
// is refused with a message, rather than rendered differently.

const ACTION = /\{\{(-\s)?\s*(.*?)\s*(\s-)?\}\}/gs;
const FIELD = /^\.([A-Za-z_][A-Za-z0-9_]*)$/;
const INDEX = /^index\s+\.\s+"((?:[^"\\]|\\.)*)"$/;

/** Renders `template` over `values`; a name not among them prints `<no value>`, as Go's text/template does. */
export function renderTemplate(template: string, values: Readonly<Record<string, string>>): string {
  let out = '';
  let last = 0;
  for (const m of template.matchAll(ACTION)) {
    let text = template.slice(last, m.index);
    if (m[1]) text = text.trimEnd();
    out += text;
    const action = m[2] ?? '';
    const name = FIELD.exec(action)?.[1] ?? unquote(INDEX.exec(action)?.[1]);
    if (name === undefined) {
      throw new Error(`template: unsupported action {{${action}}}: this port renders {{ .name }} and {{ index . "name" }}`);
    }
    out += Object.hasOwn(values, name) ? values[name] : '<no value>';
    last = m.index + m[0].length;
    if (m[3]) last += /^\s*/.exec(template.slice(last))![0].length;
  }
  return out + template.slice(last);
}

function unquote(s: string | undefined): string | undefined {
  return s === undefined ? undefined : (JSON.parse(`"${s}"`) as string);
}
