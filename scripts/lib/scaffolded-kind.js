// "A kind made by `scaffold create api`", for the tests and benchmarks that run an operator's own custom resources
// rather than built-in ones: this checkout's built CLI (bin/scaffold.js, run on dist/) scaffolds a project in a given
// directory (`init --skip-install`, `create api --resource --controller=false`), one string field is added to the
// scaffolded spec beside its `foo` (`pad`, what the benchmarks size objects with), and `manifests` writes the CRD.
// Plain JavaScript so that bench/*.js can import it; test/support/scaffolded-kind.ts re-exports it for the tests.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parse } from 'yaml';

const run = promisify(execFile);
const checkout = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(checkout, 'bin/scaffold.js');

/** The line of the scaffolded types after which the `pad` field goes (templates/api's example field). */
const FOO = /^(\s*)foo\?: string;\n/m;

/** Runs this checkout's CLI in `cwd`; throws with its output when it fails. */
async function scaffold(cwd, args) {
  try {
    await run(process.execPath, [bin, ...args], { cwd, env: { ...process.env, NO_COLOR: '1' } });
  } catch (err) {
    throw new Error(`scaffold ${args.join(' ')} failed in ${cwd}:\n${err.stdout ?? ''}${err.stderr ?? err.message}`);
  }
}

/**
 * Scaffolds a project in `dir` (an empty directory) with one namespaced kind and returns its generated CRD (parsed
 * from config/crd/bases), a runtime Resource descriptor for it (what defineResource makes: a frozen plain object), and
 * its `plural.group/version/Kind` name as test/runtime/fixtures/sharded-replica.ts's SHARD_RESOURCE and
 * bench/go/shardpeer's -resource take it. Its spec has two optional strings: `foo` (the scaffold's own) and `pad`.
 */
export async function scaffoldKind(
  dir,
  { domain = 'example.com', group = 'fleet', version = 'v1', kind = 'Ship' } = {},
) {
  if (!existsSync(join(checkout, 'dist/cli/index.js')))
    throw new Error('dist/ is missing: run `npm run build` first (the CLI is run from its build)');
  await scaffold(dir, ['init', '--domain', domain, '--skip-install']);
  await scaffold(dir, [
    'create',
    'api',
    '--group',
    group,
    '--version',
    version,
    '--kind',
    kind,
    '--resource',
    '--controller=false',
  ]);
  const types = join(dir, 'api', version, `${kind.toLowerCase()}_types.ts`);
  const source = readFileSync(types, 'utf8');
  if (!FOO.test(source))
    throw new Error(`${types}: the scaffolded spec has no \`foo?: string;\` to add \`pad\` beside`);
  writeFileSync(
    types,
    source.replace(
      FOO,
      (line, indent) =>
        `${line}\n${indent}/** pad is free text of a chosen size: the benchmarks' payload. */\n${indent}// +optional\n${indent}pad?: string;\n`,
    ),
  );
  await scaffold(dir, ['manifests']);
  const fullGroup = `${group}.${domain}`;
  const crdFile = join(dir, 'config', 'crd', 'bases', `${fullGroup}_${kind.toLowerCase()}s.yaml`);
  const crd = parse(readFileSync(crdFile, 'utf8'));
  const plural = crd.spec.names.plural;
  const resource = Object.freeze({
    group: fullGroup,
    version,
    kind,
    plural,
    namespaced: crd.spec.scope === 'Namespaced',
    apiVersion: `${fullGroup}/${version}`,
  });
  return { dir, crdFile, crd, resource, name: `${plural}.${fullGroup}/${version}/${kind}` };
}
