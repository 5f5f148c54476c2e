// The layering of src/, checked on its import graph. Three packages: the runtime (@kubescaffold/runtime, src/runtime),
// envtest (@kubescaffold/envtest, src/envtest) and the CLI (kubescaffold, the rest of src/). Imports run one way, CLI
// → envtest → runtime, and across packages only by package name, so that each package builds and installs alone.
// Inside the CLI, the command layer is on top; below it the generators, the scaffold and the cluster commands; at the
// bottom a leaf layer everyone may use. Every import counts: static, `export ... from`, dynamic import() of a literal
// path, and `import type` (types couple modules too). A test rather than an eslint rule, because the rules are about
// folders and their relations, which a few lines here say more plainly than per-directory lint config.
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../', import.meta.url));
const src = join(repo, 'src');

/** The leaf layer of the CLI: what its other folders may import, and which imports nothing of ours outside itself. */
const LEAF = ['errors.ts', 'diagnostics.ts', 'files/', 'project/', 'yaml/'];

/** The workspace packages under src/, each a folder with its own package.json. */
const WORKSPACES = { runtime: 'runtime/', envtest: 'envtest/' } as const;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.isDirectory()) return e.name === 'dist' || e.name === 'node_modules' ? [] : sources(join(dir, e.name));
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [join(dir, e.name)] : [];
  });
}

interface Edge {
  /** The importing file, relative to src/. */
  from: string;
  /** A relative import's target relative to src/, or a bare specifier as written. */
  to: string;
  /** Whether `to` is a package's name (or a subpath of one) rather than a relative path. */
  bare: boolean;
  statement: string;
}

/**
 * Every import of every file in src/: relative ones as paths relative to src/, bare ones as written. TypeScript's
 * pre-processor finds them (static, `export ... from`, import() of a literal) and skips strings and template text,
 * such as the import lines of the code the generators write.
 */
function importGraph(): Edge[] {
  return sources(src).flatMap((file) =>
    ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles.map(({ fileName: spec }) => {
      const bare = !spec.startsWith('.');
      const to = bare ? spec : relative(src, resolve(dirname(file), spec)).replace(/\.js$/, '.ts');
      return { from: relative(src, file), to, bare, statement: `import '${spec}'` };
    }),
  );
}

const packageOf = (spec: string): string =>
  spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
const isBuiltin = (spec: string): boolean => spec.startsWith('node:') || builtinModules.includes(spec);
const inLeaf = (path: string): boolean => LEAF.some((l) => (l.endsWith('/') ? path.startsWith(l) : path === l));
const under =
  (dir: string) =>
  (path: string): boolean =>
    path.startsWith(dir);
const inWorkspace = (path: string): boolean => Object.values(WORKSPACES).some((w) => path.startsWith(w));
const describeEdges = (edges: Edge[]): string[] => edges.map((e) => `${e.from}: ${e.statement}`);

/** A package.json's dependencies of every kind a running or compiling package may use. */
function declaredDependencies(packageDir: string): Set<string> {
  const pkg = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as Record<
    string,
    Record<string, string> | undefined
  >;
  return new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})]);
}

/**
 * The import cycles of a graph: its strongly connected components of more than one file (or of one file importing
 * itself), found with Tarjan's algorithm, each sorted, with the files it reaches through. Iterative, so that a deep
 * chain of imports cannot overflow the stack.
 */
function importCycles(edges: readonly Edge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  for (const start of next.keys()) {
    if (index.has(start)) continue;
    const work: Array<{ file: string; pending: string[] }> = [];
    const enter = (file: string): void => {
      index.set(file, index.size);
      low.set(file, index.get(file)!);
      stack.push(file);
      onStack.add(file);
      work.push({ file, pending: [...(next.get(file) ?? [])] });
    };
    enter(start);
    while (work.length > 0) {
      const frame = work.at(-1)!;
      const to = frame.pending.shift();
      if (to !== undefined) {
        if (!index.has(to)) enter(to);
        else if (onStack.has(to)) low.set(frame.file, Math.min(low.get(frame.file)!, index.get(to)!));
        continue;
      }
      work.pop();
      const parent = work.at(-1);
      if (parent) low.set(parent.file, Math.min(low.get(parent.file)!, low.get(frame.file)!));
      if (low.get(frame.file) !== index.get(frame.file)) continue;
      const component: string[] = [];
      let file: string;
      do {
        file = stack.pop()!;
        onStack.delete(file);
        component.push(file);
      } while (file !== frame.file);
      if (component.length > 1 || (next.get(file) ?? []).includes(file)) cycles.push(component.sort());
    }
  }
  return cycles;
}

describe('the layering of src/', () => {
  const edges = importGraph();
  const relativeEdges = edges.filter((e) => !e.bare);
  const bareEdges = edges.filter((e) => e.bare && !isBuiltin(e.to));

  it('reads a real import graph', () => {
    expect(relativeEdges.length).toBeGreaterThan(300);
    expect(relativeEdges.some((e) => e.from === 'cli/index.ts' && e.to === 'errors.ts')).toBe(true);
    expect(
      bareEdges.some((e) => e.from === 'envtest/controlplane/request.ts' && e.to === '@kubescaffold/runtime/rest'),
    ).toBe(true);
  });

  it('keeps every relative import of a package inside that package', () => {
    const crossing = relativeEdges.filter((e) => {
      const home = Object.values(WORKSPACES).find((w) => e.from.startsWith(w));
      return home ? !e.to.startsWith(home) : inWorkspace(e.to);
    });
    expect(describeEdges(crossing)).toEqual([]);
  });

  it('runs imports between packages one way: CLI → envtest → runtime', () => {
    const runtimeUp = bareEdges.filter(
      (e) => under(WORKSPACES.runtime)(e.from) && /^(@kubescaffold\/envtest|kubescaffold)(\/|$)/.test(e.to),
    );
    const envtestUp = bareEdges.filter((e) => under(WORKSPACES.envtest)(e.from) && /^kubescaffold(\/|$)/.test(e.to));
    expect(describeEdges([...runtimeUp, ...envtestUp])).toEqual([]);
  });

  it('has each package import only the packages its package.json declares', () => {
    const packages = [
      { dir: join(src, 'runtime'), owns: under(WORKSPACES.runtime) },
      { dir: join(src, 'envtest'), owns: under(WORKSPACES.envtest) },
      { dir: repo, owns: (path: string) => !inWorkspace(path) },
    ];
    const undeclared = packages.flatMap(({ dir, owns }) => {
      const declared = declaredDependencies(dir);
      return bareEdges.filter((e) => owns(e.from) && !declared.has(packageOf(e.to)));
    });
    expect(describeEdges(undeclared)).toEqual([]);
  });

  it("keeps envtest's two tools apart: obtaining the binaries never imports the control plane that runs them", () => {
    expect(relativeEdges.some((e) => under('envtest/controlplane/')(e.from) && under('envtest/binaries/')(e.to))).toBe(
      true,
    );
    expect(
      describeEdges(
        relativeEdges.filter((e) => under('envtest/binaries/')(e.from) && under('envtest/controlplane/')(e.to)),
      ),
    ).toEqual([]);
  });

  it('keeps the manifest generators apart from the scaffolder: they read a project, they do not create one', () => {
    const generators = ['generate/', 'markers/', 'crd/', 'rbac/', 'webhookgen/', 'kustomize/'];
    expect(
      describeEdges(
        relativeEdges.filter((e) => generators.some((d) => e.from.startsWith(d)) && under('scaffold/')(e.to)),
      ),
    ).toEqual([]);
  });

  it("layers the runtime's API machinery as client-go does: clientcmd, then rest, discovery, restmapper, client", () => {
    // Each of these folders imports only the ones before it.
    const layers = ['clientcmd', 'rest', 'discovery', 'restmapper', 'client'];
    const layer = (path: string): number => layers.indexOf(path.split('/')[1]!);
    const between = relativeEdges.filter(
      (e) =>
        under('runtime/')(e.from) &&
        under('runtime/')(e.to) &&
        layer(e.from) >= 0 &&
        layer(e.to) >= 0 &&
        layer(e.from) !== layer(e.to),
    );
    expect(
      between.some((e) => e.from === 'runtime/rest/transport.ts' && e.to === 'runtime/clientcmd/kubeconfig-types.ts'),
    ).toBe(true);
    expect(
      between.some(
        (e) => e.from === 'runtime/restmapper/restmapper.ts' && e.to === 'runtime/discovery/discovery-client.ts',
      ),
    ).toBe(true);
    const upward = between.filter((e) => layer(e.to) > layer(e.from));
    expect(describeEdges(upward)).toEqual([]);
  });

  it('names every file in one style: lower-case words joined by hyphens', () => {
    const named = sources(src).map((f) => relative(src, f));
    expect(named.length).toBeGreaterThan(300);
    expect(named.filter((f) => !/^[a-z0-9][a-z0-9-]*(\.d)?\.ts$/.test(f.split('/').at(-1)!))).toEqual([]);
  });

  it('defines the plain-object check once, in @kubescaffold/runtime/json, which every package may import', () => {
    const body = /typeof (\w+) === 'object' && \1 !== null && !Array\.isArray\(\1\)(?! &&)/;
    const defining = sources(src)
      .filter((f) => body.test(readFileSync(f, 'utf8')))
      .map((f) => relative(src, f));
    expect(defining).toEqual(['runtime/json/index.ts']);
  });

  it('lets nothing outside src/cli import src/cli', () => {
    expect(describeEdges(relativeEdges.filter((e) => !under('cli/')(e.from) && under('cli/')(e.to)))).toEqual([]);
  });

  it('keeps the leaf layer free of imports of anything of ours outside it', () => {
    expect(describeEdges(relativeEdges.filter((e) => inLeaf(e.from) && !inLeaf(e.to)))).toEqual([]);
  });

  it('keeps the generators, scaffold, kustomize and cluster from importing the CLI above them', () => {
    const lower = ['scaffold/', 'markers/', 'crd/', 'rbac/', 'webhookgen/', 'generate/', 'kustomize/', 'cluster/'];
    expect(
      describeEdges(relativeEdges.filter((e) => lower.some((d) => e.from.startsWith(d)) && under('cli/')(e.to))),
    ).toEqual([]);
  });

  it('finds an import cycle when there is one', () => {
    const edge = (from: string, to: string): Edge => ({ from, to, bare: false, statement: `import '${to}'` });
    expect(
      importCycles([edge('a.ts', 'b.ts'), edge('b.ts', 'c.ts'), edge('c.ts', 'a.ts'), edge('c.ts', 'd.ts')]),
    ).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    expect(importCycles([edge('a.ts', 'a.ts')])).toEqual([['a.ts']]);
    expect(importCycles([edge('a.ts', 'b.ts'), edge('a.ts', 'c.ts'), edge('b.ts', 'c.ts')])).toEqual([]);
  });

  it("has no import cycle through src/scaffold: a plugin's spec is data the registry reads, importing nothing back", () => {
    // Type-only and dynamic imports count: a cycle of them still ties the modules' builds and their load order.
    const cycles = importCycles(relativeEdges).filter((cycle) => cycle.some(under('scaffold/')));
    expect(cycles).toEqual([]);
  });

  it("keeps each built-in plugin's spec plain data: its spec.ts imports only the plugins' types", () => {
    const fromSpecs = relativeEdges.filter((e) => /^scaffold\/plugins\/[^/]+\/spec\.ts$/.test(e.from));
    expect(new Set(fromSpecs.map((e) => e.from)).size).toBeGreaterThanOrEqual(5);
    expect(describeEdges(fromSpecs.filter((e) => e.to !== 'scaffold/plugins/plugin.ts'))).toEqual([]);
  });

  it('lets the rest of src/scaffold reach a plugin only through its spec data, the registry or the chain', () => {
    const allowed = (to: string): boolean =>
      /^scaffold\/plugins\/([^/]+\/spec|plugin|registry|chain|run-chain)\.ts$/.test(to);
    const intoPlugins = relativeEdges.filter(
      (e) => under('scaffold/')(e.from) && !under('scaffold/plugins/')(e.from) && under('scaffold/plugins/')(e.to),
    );
    expect(intoPlugins.some((e) => e.from === 'scaffold/alpha/replay.ts')).toBe(true);
    expect(describeEdges(intoPlugins.filter((e) => !allowed(e.to)))).toEqual([]);
  });
});
