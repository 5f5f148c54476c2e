// Checks the book's links to files (a tutorial's source file, a YAML sample), which VitePress's dead-link check leaves
// out: it checks links to pages only. A link from a built page to a file must find that file in the built site.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

/** Every .html file below `root`. */
function htmlPages(root) {
  const out = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name.endsWith('.html')) out.push(join(dir, e.name));
    }
  };
  walk(root);
  return out;
}

/**
 * The links of the built pages under `distRoot` to files (anything but a page: not .html, not a folder) that the site
 * does not have, as `page: href` strings. Links to other sites are not checked.
 */
export function brokenFileLinks(distRoot) {
  const broken = [];
  for (const page of htmlPages(distRoot)) {
    for (const m of readFileSync(page, 'utf8').matchAll(/\shref="([^"]*)"/g)) {
      const href = m[1].replace(/[?#].*$/, '');
      if (href === '' || /^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) continue;
      const last = href.split('/').pop();
      if (last === '' || last.endsWith('.html') || !last.includes('.')) continue;
      const target = href.startsWith('/')
        ? join(distRoot, decodeURIComponent(href))
        : join(dirname(page), decodeURIComponent(href));
      if (!existsSync(target)) broken.push(`${relative(distRoot, page).split(sep).join('/')}: ${m[1]}`);
    }
  }
  return [...new Set(broken)].sort();
}
