import { readFileSync } from 'node:fs';
import Handlebars from 'handlebars';

/** The templates/ folder of this package (two levels above both src/scaffold and dist/scaffold). */
export const templatesRoot = new URL('../../templates/', import.meta.url);

const engine = Handlebars.create();
const compiled = new Map<string, Handlebars.TemplateDelegate>();

/** Renders templates/<name>.hbs. Output is code and YAML, so nothing is HTML-escaped. */
export function render(name: string, data: object): string {
  let template = compiled.get(name);
  if (!template) {
    const source = readFileSync(new URL(`${name}.hbs`, templatesRoot), 'utf8');
    template = engine.compile(source, { noEscape: true, strict: true });
    compiled.set(name, template);
  }
  return template(data);
}
