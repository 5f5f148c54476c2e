// The @example blocks of the runtime's and envtest's doc comments are programs, as controller-runtime's
// example_test.go files are: each is type-checked against this checkout, bundled, and run as its own Node process
// against a real kube-apiserver and etcd (KUBECONFIG names them). An example that ends with `// Output:` lines must
// print exactly those lines.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../src/envtest/index.js';
import { bundleForNode } from '../../scripts/lib/bundle-for-node.js';
import { minutes } from '../support/commands.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

/** One @example block: where it is, the declaration it documents, its code, and the output it promises. */
interface Example {
  /** src/<file>:<line of the tag> */
  where: string;
  /** The declaration's name, e.g. Manager or newClient. */
  name: string;
  code: string;
  /** The lines after `// Output:`, when the example has them. */
  output: string[] | undefined;
}

/** The TypeScript files of a package's sources (not its build output). */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return entry === 'dist' || entry === 'node_modules' ? [] : sourceFiles(path);
    return entry.endsWith('.ts') && !entry.endsWith('.d.ts') ? [path] : [];
  });
}

/** The hand-written declaration files of a package's sources. */
function declarationFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return entry === 'dist' || entry === 'node_modules' ? [] : declarationFiles(path);
    return entry.endsWith('.d.ts') ? [path] : [];
  });
}

/** The ```ts block of an @example tag's text, and the `// Output:` lines that end it. */
function parseExample(text: string): { code: string; output: string[] | undefined } | undefined {
  const block = /```(?:ts|typescript)\n([\s\S]*?)```/.exec(text);
  if (!block) return undefined;
  const code = block[1]!;
  const lines = code.trimEnd().split('\n');
  const at = lines.findIndex((l) => l.trim() === '// Output:');
  if (at < 0) return { code, output: undefined };
  return { code, output: lines.slice(at + 1).map((l) => l.trim().replace(/^\/\/ ?/, '')) };
}

/**
 * The text of a doc comment as written, without its delimiters and the leading `*` of each line. TypeScript's own
 * JSDoc reading drops code's indentation, which the examples keep.
 */
function commentText(raw: string): string {
  return raw
    .replace(/^\/\*\*/, '')
    .replace(/\*\/$/, '')
    .split('\n')
    .map((line) => line.replace(/^\s*\* ?/, ''))
    .join('\n');
}

/** Every @example on a declaration of the file, with the declaration's name. */
function examplesOf(path: string): Example[] {
  const text = readFileSync(path, 'utf8');
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: Example[] = [];
  const visit = (node: ts.Node): void => {
    const named =
      ts.isClassDeclaration(node) ||
      ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isInterfaceDeclaration(node);
    if (named && node.name) {
      for (const doc of ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc)) {
        const body = commentText(doc.getText(source));
        // An @example runs from its tag, at the start of a line, to the next tag there.
        for (const match of body.matchAll(/^@example\b([\s\S]*?)(?=^@\w|$(?![\s\S]))/gm)) {
          const line =
            source.getLineAndCharacterOfPosition(doc.getStart(source)).line +
            body.slice(0, match.index).split('\n').length;
          const where = `${relative(repoRoot, path)}:${line}`;
          const parsed = parseExample(match[1] ?? '');
          if (!parsed) throw new Error(`${where}: an @example holds a \`\`\`ts block`);
          found.push({ where, name: node.name.getText(source), ...parsed });
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const examples = ['src/runtime', 'src/envtest'].flatMap((dir) => sourceFiles(join(repoRoot, dir))).flatMap(examplesOf);
// Under the repository (in the git-ignored .tmp/), so that the packages resolve from its node_modules.
mkdirSync(join(repoRoot, '.tmp'), { recursive: true });
const dir = mkdtempSync(join(repoRoot, '.tmp', 'examples-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fileOf = (e: Example): string => join(dir, `${e.where.replace(/[/.:]/g, '_')}.ts`);
for (const e of examples) writeFileSync(fileOf(e), `${e.code}\nexport {};\n`);
writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');

describe('the @example blocks of the runtime and envtest', () => {
  it('reads the code and the promised output of an @example', () => {
    expect(parseExample('Prints.\n```ts\nconsole.log(1);\n// Output:\n// 1\n```')).toEqual({
      code: 'console.log(1);\n// Output:\n// 1\n',
      output: ['1'],
    });
    expect(parseExample('```ts\nconst a = 1;\n```')).toEqual({ code: 'const a = 1;\n', output: undefined });
    expect(parseExample('no code')).toBeUndefined();
  });

  it('documents each main entry point with one', () => {
    const names = new Set(examples.map((e) => e.name));
    for (const name of [
      'Manager',
      'newControllerManagedBy',
      'newClient',
      'SharedInformerFactory',
      'TestEnvironment',
      'FakeClient',
    ]) {
      expect(names, `an @example on ${name}`).toContain(name);
    }
  });

  it('type-check against this checkout, each error reported at its source line', () => {
    const options: ts.CompilerOptions = {
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2023.d.ts'],
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      customConditions: ['kubescaffold-source'],
      strict: true,
      noUncheckedIndexedAccess: true,
      skipLibCheck: true,
      noEmit: true,
      types: ['node'],
    };
    // The runtime's own ambient declarations (prom-client's deep modules) come along, as its tsconfig includes them.
    const ambient = ['src/runtime', 'src/envtest'].flatMap((d) => declarationFiles(join(repoRoot, d)));
    const program = ts.createProgram([...examples.map(fileOf), ...ambient], options);
    const byFile = new Map(examples.map((e) => [program.getSourceFile(fileOf(e)), e]));
    const failures = ts.getPreEmitDiagnostics(program).map((d) => {
      const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
      const example = d.file && byFile.get(d.file);
      if (!d.file || d.start === undefined || !example) return `${d.file?.fileName ?? ''} (${d.code}) ${message}`;
      const line = d.file.getLineAndCharacterOfPosition(d.start).line;
      return `${example.where} (${example.name}), line ${line + 1} of the example: ${message}`;
    });
    expect(failures).toEqual([]);
  });

  describe('run against a real API server', () => {
    let env: TestEnvironment | undefined;
    let kubeconfig = '';
    beforeAll(async () => {
      env = await TestEnvironment.start();
      kubeconfig = join(dir, 'kubeconfig');
      writeFileSync(kubeconfig, env.kubeconfigYaml());
    });
    afterAll(() => env?.stop());

    it.each(examples.map((e) => [`${e.name} (${e.where})`, e] as const))(
      '%s',
      async (_, example) => {
        const outfile = fileOf(example).replace(/\.ts$/, '.mjs');
        await bundleForNode(fileOf(example), outfile);
        const { stdout } = await run(process.execPath, [outfile], {
          cwd: dir,
          env: { ...process.env, KUBECONFIG: kubeconfig },
          timeout: minutes(1),
        });
        if (example.output) expect(stdout.trimEnd().split('\n')).toEqual(example.output);
      },
      minutes(2),
    );
  });
});
