import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type HandlebarsTypes from 'handlebars';

/** The templates/ folder of this package (two levels above both src/scaffold and dist/scaffold). */
export const templatesRoot = new URL('../../templates/', import.meta.url);

type TemplateSpec = Parameters<typeof HandlebarsTypes.template>[0];
type Render = (data: object) => string;

const require = createRequire(import.meta.url);
const cache = new Map<string, Render>();
let precompiled: Record<string, TemplateSpec> | null | undefined;

/**
 * Renders templates/<name>.hbs. The built package uses the templates precompiled at build time; running from
 * source (tests) compiles them on first use. Output is code and YAML, so nothing is HTML-escaped.
 */
export function render(name: string, data: object): string {
  let template = cache.get(name);
  if (!template) {
    template = load(name);
    cache.set(name, template);
  }
  return template(data);
}

function load(name: string): Render {
  if (precompiled === undefined) {
    try {
      precompiled = require('../templates.precompiled.cjs') as Record<string, TemplateSpec>;
    } catch {
      precompiled = null;
    }
  }
  const spec = precompiled?.[name];
  // The runtime build holds only template(); its package ships no types of its own, so it is typed as the full one.
  if (spec) return (require('handlebars/runtime') as typeof HandlebarsTypes).template(spec);
  // Only from source: the full compiler is loaded lazily, so the built CLI never pays for it.
  const compiler = require('handlebars') as typeof import('handlebars');
  return compiler.compile(readFileSync(new URL(`${name}.hbs`, templatesRoot), 'utf8'), {
    noEscape: true,
    strict: true,
  });
}
