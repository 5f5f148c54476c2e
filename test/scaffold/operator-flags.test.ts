/**
 * The operator's own flags: init writes cmd/flags.ts, where the user declares them, and cmd/main.ts parses them with
 * the manager's flags (Go's flag package's rules, the same usage listing), typed. Checked on the rendered files, by
 * the compiler, and by running a scaffolded manager, transpiled, with this checkout's runtime.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { typeErrors } from '../support/typecheck.js';
import { initProject, tempProjectDir } from './helpers.js';

const checkout = fileURLToPath(new URL('../../', import.meta.url));
const MARKER = '  // +kubebuilder:scaffold:flags\n';

/** What a user writes at the marker of cmd/flags.ts: a flag of each type, a value flag with its own parser. */
const USER_FLAGS = [
  "  'sync-period': { type: 'string', default: '10h', usage: 'How often every Captain is reconciled again.' },",
  "  'max-backups': { type: 'int', default: 5, usage: 'How many backups of a Captain are kept.' },",
  "  'dry-run': { type: 'bool', default: false, usage: 'Log what would change instead of changing it.' },",
  "  'mode': { type: 'value', default: 'safe', parse: parseMode, usage: 'How a Captain is upgraded: safe or fast.' },",
].join('\n');
const PARSE_MODE = [
  "function parseMode(text: string): 'safe' | 'fast' {",
  "  if (text !== 'safe' && text !== 'fast') throw new Error('must be safe or fast');",
  '  return text;',
  '}',
  '',
].join('\n');

/** cmd/flags.ts with the user's flags at the marker (which stays, below them). */
function addFlags(root: string, flags = USER_FLAGS, before = PARSE_MODE): void {
  const path = join(root, 'cmd/flags.ts');
  const text = readFileSync(path, 'utf8');
  expect(text).toContain(MARKER);
  writeFileSync(
    path,
    text
      .replace('export const operatorFlags', `${before}export const operatorFlags`)
      .replace(MARKER, `${flags}\n${MARKER}`),
  );
}

/** cmd/main.ts with `lines` after the line that configures the log (the flags are parsed by then). */
function useInMain(root: string, lines: string[], imports: string[] = []): void {
  const path = join(root, 'cmd/main.ts');
  const anchor = "configureLog({ level: flags['zap-log-level'] });\n";
  let text = readFileSync(path, 'utf8');
  expect(text).toContain(anchor);
  text = text.replace(anchor, `${anchor}${lines.join('\n')}\n`);
  text = text.replace(
    '// +kubebuilder:scaffold:imports\n',
    `${imports.map((i) => `${i}\n`).join('')}// +kubebuilder:scaffold:imports\n`,
  );
  writeFileSync(path, text);
}

describe("the operator's own flags", () => {
  let project: { root: string; cleanup: () => void };
  beforeAll(() => {
    project = tempProjectDir('crew-operator');
    initProject(project.root);
  });
  afterAll(() => project.cleanup());

  it("init writes cmd/flags.ts with a marked place for them, and cmd/main.ts spreads them into the manager's flags", () => {
    const flags = readFileSync(join(project.root, 'cmd/flags.ts'), 'utf8');
    expect(flags).toContain("import type { FlagDefinitions, FlagValues } from '@kubescaffold/runtime';");
    expect(flags).toContain(`export const operatorFlags = {\n${MARKER}} satisfies FlagDefinitions;`);
    expect(flags).toContain('export type OperatorFlags = FlagValues<typeof operatorFlags>;');
    // the license header, as every scaffolded source has it
    expect(flags.startsWith('/*\nCopyright ')).toBe(true);
    const main = readFileSync(join(project.root, 'cmd/main.ts'), 'utf8');
    expect(main).toContain("import { operatorFlags } from './flags.js';\n// +kubebuilder:scaffold:imports");
    // the last entry of parseFlagsOrExit's definitions: after the manager's flags, so that redefining one of them is
    // TypeScript's "specified more than once" error
    expect(main).toMatch(/\n {4}\.\.\.operatorFlags,\n {2}\},\n {2}process\.argv\.slice\(2\),\n/);
    expect(main.indexOf('...operatorFlags')).toBeGreaterThan(main.indexOf("'zap-log-level':"));
  });
});

describe('a project with flags of its own', () => {
  let project: { root: string; cleanup: () => void };
  beforeAll(() => {
    project = tempProjectDir('crew-operator');
    initProject(project.root);
    addFlags(project.root);
  });
  afterAll(() => project.cleanup());

  it('compiles, and main.ts reads each flag typed by its definition, and all of them as OperatorFlags', () => {
    const { root } = project;
    useInMain(
      root,
      [
        "const syncPeriod: string = flags['sync-period'];",
        "const maxBackups: number = flags['max-backups'];",
        "const dryRun: boolean = flags['dry-run'];",
        "const mode: 'safe' | 'fast' = flags.mode;",
        '// what a controller is handed',
        'const operatorOptions: OperatorFlags = flags;',
        "setupLog.info('operator flags', { syncPeriod, maxBackups, dryRun, mode, given: Object.keys(operatorOptions).length });",
      ],
      ["import type { OperatorFlags } from './flags.js';"],
    );
    expect(typeErrors([join(root, 'cmd/main.ts'), join(root, 'cmd/flags.ts')])).toEqual([]);
    // and a wrong type is an error: the values are typed, not `unknown` or `any`
    const main = join(root, 'cmd/main.ts');
    const typed = readFileSync(main, 'utf8');
    writeFileSync(
      main,
      typed.replace(
        "const maxBackups: number = flags['max-backups'];",
        "const maxBackups: string = flags['max-backups'];",
      ),
    );
    try {
      expect(typeErrors([main, join(root, 'cmd/flags.ts')]).join('\n')).toMatch(
        /Type 'number' is not assignable to type 'string'/,
      );
    } finally {
      writeFileSync(main, typed);
    }
  });

  it("lists them in --help with the manager's, in Go's format, and parses them as Go does", () => {
    const run = buildAndRun(project.root);
    const help = run(['--help']);
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain('Usage of manager:\n');
    expect(help.stdout).toContain(
      '  -sync-period string\n    \tHow often every Captain is reconciled again. (default "10h")\n',
    );
    expect(help.stdout).toContain('  -max-backups int\n    \tHow many backups of a Captain are kept. (default 5)\n');
    expect(help.stdout).toContain('  -dry-run\n    \tLog what would change instead of changing it.\n');
    expect(help.stdout).toContain('  -mode value\n    \tHow a Captain is upgraded: safe or fast. (default safe)\n');
    // among the manager's own, in name order
    expect(help.stdout).toContain('  -leader-elect\n');
    const names = [...help.stdout.matchAll(/^ {2}-(\S+)/gm)].map((m) => m[1]);
    expect(names).toEqual([...names].sort());

    // parsed: the manager logs them, then stops at the missing kubeconfig (exit 1), after the flags were accepted
    const parsed = run(['-sync-period', '5m', '--max-backups=0x10', '-dry-run', '--mode=fast', '--leader-elect=false']);
    expect(parsed.status, parsed.stderr).toBe(1);
    const line = parsed.stderr.split('\n').find((l) => l.includes('"operator flags"'));
    expect(line, parsed.stderr).toBeDefined();
    expect(JSON.parse(line!)).toMatchObject({ syncPeriod: '5m', maxBackups: 16, dryRun: true, mode: 'fast' });
    expect(parsed.stderr).toContain('unable to get kubeconfig');

    // the defaults when not given
    const defaults = run([]);
    const defaultLine = defaults.stderr.split('\n').find((l) => l.includes('"operator flags"'));
    expect(JSON.parse(defaultLine!)).toMatchObject({ syncPeriod: '10h', maxBackups: 5, dryRun: false, mode: 'safe' });

    // refused as Go refuses them: the message, the usage, exit 2
    const bad = run(['--mode=loud']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('invalid value "loud" for flag -mode: must be safe or fast\nUsage of manager:\n');
    const badInt = run(['--max-backups', 'many']);
    expect(badInt.status).toBe(2);
    expect(badInt.stderr).toContain('invalid value "many" for flag -max-backups: parse error');
  });
});

describe('a flag of its own named as one of the manager flags', () => {
  it("does not compile, naming the flag, as Go's flag package refuses a flag defined twice", () => {
    const project = tempProjectDir('crew-operator');
    try {
      initProject(project.root);
      addFlags(project.root, "  'leader-elect': { type: 'bool', default: true, usage: 'Mine.' },", '');
      const errors = typeErrors([join(project.root, 'cmd/main.ts'), join(project.root, 'cmd/flags.ts')]);
      expect(errors).toEqual([
        expect.stringMatching(
          /cmd\/main\.ts:\d+: 'leader-elect' is specified more than once, so this usage will be overwritten\./,
        ),
      ]);
    } finally {
      project.cleanup();
    }
  });
});

/**
 * Transpiles cmd/*.ts of the project as `npm run build` would (into dist/cmd, without the type check the compiler
 * runs there), gives it this checkout's runtime as its @kubescaffold/runtime, and returns a runner of the manager
 * with no kubeconfig to find.
 */
function buildAndRun(root: string): (args: string[]) => { status: number | null; stdout: string; stderr: string } {
  for (const file of ['main', 'flags']) {
    const source = readFileSync(join(root, 'cmd', `${file}.ts`), 'utf8');
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
    });
    const out = join(root, 'dist', 'cmd', `${file}.js`);
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, outputText);
  }
  mkdirSync(join(root, 'node_modules', '@kubescaffold'), { recursive: true });
  symlinkSync(join(checkout, 'src', 'runtime'), join(root, 'node_modules', '@kubescaffold', 'runtime'), 'dir');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: root,
    KUBECONFIG: join(root, 'no-such-kubeconfig'),
    KUBERNETES_SERVICE_HOST: '',
  };
  return (args) => {
    const result = spawnSync(process.execPath, [join(root, 'dist', 'cmd', 'main.js'), ...args], {
      cwd: root,
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  };
}
