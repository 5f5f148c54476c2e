// What each package's tarball may hold and weigh: the release checks its tarballs with this before it publishes, and
// test/e2e/package.test.ts checks `npm pack`'s on every run.

/**
 * Budgets for what every user downloads (packed) and unpacks; raise one only for something users need, from a
 * measurement. The CLI's unpacked budget holds the book (docs/, about 1 MB with the API reference and the tutorial),
 * which scaffolded files point into. The runtime ships its compiled JavaScript and its declarations with their doc
 * comments, no sources or source maps (src/runtime/README.md says why): 211 KiB packed and 778 KiB unpacked at 0.1.0,
 * so its budgets leave about half as much again to grow.
 */
export const TARBALL_BUDGETS = {
  kubescaffold: { packed: 1024 * 1024, unpacked: 3.5 * 1024 * 1024 },
  '@kubescaffold/runtime': { packed: 320 * 1024, unpacked: 1.25 * 1024 * 1024 },
  '@kubescaffold/envtest': { packed: 128 * 1024, unpacked: 384 * 1024 },
};

/**
 * Files no tarball ships: source maps (they point at sources that are not shipped), build info, TypeScript sources,
 * tests, benchmarks and scripts. The book's tutorial project (docs/tutorial/project) is a project's sources and tests,
 * shown to readers.
 */
export function isUnshippable(path) {
  if (path.startsWith('docs/tutorial/project/')) return false;
  return /\.map$|\.tsbuildinfo$|(^|\/)(src|test|bench|scripts)\/|^[^/]+\.ts$|^tsconfig/.test(path);
}

/**
 * The files a package.json's "exports" (types and import targets) and "bin" point at that `paths`, a tarball's files,
 * does not hold: an entry point that would fail to load once installed.
 */
export function missingEntryPoints(manifest, paths) {
  const targets = (value) =>
    typeof value === 'string'
      ? [value]
      : value && typeof value === 'object'
        ? Object.values(value).flatMap(targets)
        : [];
  const exported = targets(manifest.exports ?? {}).filter((t) => !t.endsWith('.ts') || t.endsWith('.d.ts'));
  const bins = typeof manifest.bin === 'string' ? [manifest.bin] : Object.values(manifest.bin ?? {});
  const held = new Set(paths);
  return [...new Set([...exported, ...bins].map((t) => t.replace(/^\.\//, '')))].filter((t) => !held.has(t)).sort();
}

/**
 * What is wrong with `npm pack --json`'s results for the release: a package missing or unexpected, a file that should
 * not ship, a LICENSE or README missing, or a size over its budget. Empty when all is well.
 */
export function tarballProblems(packed) {
  const problems = [];
  const names = packed.map((p) => p.name);
  for (const name of Object.keys(TARBALL_BUDGETS)) if (!names.includes(name)) problems.push(`${name}: not packed`);
  for (const p of packed) {
    const budget = TARBALL_BUDGETS[p.name];
    if (!budget) {
      problems.push(`${p.name}: not one of the release's packages`);
      continue;
    }
    const paths = p.files.map((f) => f.path);
    for (const required of ['LICENSE', 'README.md', 'package.json'])
      if (!paths.includes(required)) problems.push(`${p.name}: no ${required}`);
    for (const path of paths.filter(isUnshippable)) problems.push(`${p.name}: ships ${path}, which it should not`);
    const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
    if (p.size >= budget.packed)
      problems.push(`${p.name}: ${kib(p.size)} packed, over its budget of ${kib(budget.packed)}`);
    if (p.unpackedSize >= budget.unpacked)
      problems.push(`${p.name}: ${kib(p.unpackedSize)} unpacked, over its budget of ${kib(budget.unpacked)}`);
  }
  return problems;
}
