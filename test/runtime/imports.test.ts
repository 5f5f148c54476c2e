// The runtime's memory discipline, checked on its sources: an operator's pod has 128Mi, and importing
// @kubernetes/client-node's JavaScript alone takes a process past 110 MiB. Its types are fine (`import type` is erased);
// the proxy libraries are loaded only when a proxy is configured. js-yaml, which reads kubeconfig files, is a static
// import (under 1 MiB), so that a bundler sees it; the CLI's YAML library (`yaml`, 8–10 MiB) is never loaded.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const runtime = join(root, 'src', 'runtime');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The import and export-from statements of `module` in a source text that are not `import type` / `export type`. */
function valueImportsIn(text: string, module: string): string[] {
  const statements = /^\s*(?:(?:import|export)\b[^;'"]*?\bfrom\s*|import\s*)['"]([^'"]+)['"]/gm;
  return [...text.matchAll(statements)]
    .filter((m) => m[1] === module && !/^\s*(?:import|export)\s+type\b/.test(m[0]))
    .map((m) => m[0].trim().split('\n')[0]!);
}

/** Such statements in src/runtime, as `file: statement`. */
function valueImports(module: string): string[] {
  return sources(runtime).flatMap((file) =>
    valueImportsIn(readFileSync(file, 'utf8'), module).map((s) => `${relative(root, file)}: ${s}`),
  );
}

it('sees value imports and lets type imports pass', () => {
  const text = [
    "import type { V1Pod } from '@kubernetes/client-node';",
    "export type * as k8s from '@kubernetes/client-node';",
    "import { KubeConfig } from '@kubernetes/client-node';",
    "import {\n  CoreV1Api,\n} from '@kubernetes/client-node';",
    "export { V1Pod } from '@kubernetes/client-node';",
    "import '@kubernetes/client-node';",
    "const lazy = () => import('@kubernetes/client-node');",
    "export function types(): typeof import('@kubernetes/client-node') {",
  ].join('\n');
  expect(valueImportsIn(text, '@kubernetes/client-node')).toEqual([
    "import { KubeConfig } from '@kubernetes/client-node'",
    'import {',
    "export { V1Pod } from '@kubernetes/client-node'",
    "import '@kubernetes/client-node'",
  ]);
});

it('loads nothing of @kubernetes/client-node at run time: only its types', () => {
  expect(valueImports('@kubernetes/client-node')).toEqual([]);
});

it("never imports the CLI's YAML library, and imports the proxy libraries only when they are needed", () => {
  for (const lazy of ['yaml', 'https-proxy-agent', 'socks-proxy-agent']) expect(valueImports(lazy), lazy).toEqual([]);
});
