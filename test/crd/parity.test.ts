/**
 * Parity with the real controller-gen: every fixture with a Go twin (twin/) is run through controller-gen, and our
 * output for the TypeScript project must be byte-identical apart from the version annotation. Skipped (with a
 * message) where neither controller-gen nor a Go toolchain is available.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planManifests } from '../../src/generate/manifests.js';
import { toYamlDocument } from '../../src/yaml/index.js';
import { findControllerGen, hasGo, prepareGoModule } from '../../scripts/lib/controller-gen.js';
import { peerAvailable } from '../support/peers.js';
import { listFiles } from '../support/files.js';
import { GO_BUILD_MS } from '../support/limits.js';

const fixtures = join(import.meta.dirname, '../fixtures/markers');
const cases = readdirSync(fixtures).filter((d) => existsSync(join(fixtures, d, 'twin')));
const available = peerAvailable(
  'parity with controller-gen',
  hasGo() || process.env.CONTROLLER_GEN !== undefined
    ? undefined
    : 'Go is not installed (it builds controller-gen) and CONTROLLER_GEN is not set',
);
let controllerGen: string | undefined;
const work = mkdtempSync(join(tmpdir(), 'ks-parity-'));

const dropVersion = (yaml: string): string =>
  yaml.replace(/^ {4}(controller-gen\.kubebuilder\.io|kubescaffold\.io)\/version: .*\n/m, '');

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.skipIf(!available)('parity with controller-gen', () => {
  beforeAll(() => {
    // Building controller-gen needs the Go module proxy; without it the comparison cannot run here.
    try {
      controllerGen = findControllerGen();
    } catch (err) {
      peerAvailable('parity with controller-gen', `controller-gen could not be built: ${(err as Error).message}`);
    }
  }, GO_BUILD_MS);

  // Each case runs controller-gen once and our generator once: seconds, bounded generously.
  it.for(cases)('%s', { timeout: 300_000 }, (name, ctx) => {
    if (!controllerGen) ctx.skip();
    const dir = join(work, name);
    cpSync(join(fixtures, name, 'twin'), dir, { recursive: true });
    prepareGoModule(dir, `example.com/${name}`);
    const root = join(fixtures, name);
    const optionsFile = join(root, 'options.json');
    const options = (existsSync(optionsFile) ? JSON.parse(readFileSync(optionsFile, 'utf8')) : {}) as {
      maxDescLen?: number;
      allowDangerousTypes?: boolean;
      rbacDir?: string;
      rbacFileName?: string;
    };
    const crdOptions = [
      ...(options.maxDescLen !== undefined ? [`maxDescLen=${options.maxDescLen}`] : []),
      ...(options.allowDangerousTypes ? ['allowDangerousTypes=true'] : []),
    ];
    execFileSync(
      controllerGen!,
      [
        `rbac:roleName=manager-role${options.rbacFileName !== undefined ? `,fileName=${options.rbacFileName}` : ''}`,
        crdOptions.length > 0 ? `crd:${crdOptions.join(',')}` : 'crd',
        'webhook',
        'paths=./...',
        'output:crd:artifacts:config=out/config/crd/bases',
        `output:rbac:artifacts:config=out/${options.rbacDir ?? 'config/rbac'}`,
        'output:webhook:artifacts:config=out/config/webhook',
      ],
      { cwd: dir, stdio: 'pipe' },
    );
    const theirs = Object.fromEntries(
      listFiles(join(dir, 'out')).map((p) => [p, dropVersion(readFileSync(join(dir, 'out', p), 'utf8'))]),
    );
    const ours = Object.fromEntries(
      planManifests({ root, generatorVersion: '(devel)', ...options }).files.map((f) => [
        relative(root, f.path),
        dropVersion(f.content),
      ]),
    );
    expect(Object.keys(ours).sort()).toEqual(Object.keys(theirs).sort());
    for (const [path, content] of Object.entries(theirs)) expect(ours[path], path).toBe(content);
  });
});

describe.skipIf(
  !peerAvailable(
    'parity with gopkg.in/yaml.v2',
    hasGo() ? undefined : 'Go is not installed (it builds the yaml.v2 twin)',
  ),
)('parity with gopkg.in/yaml.v2', () => {
  it(
    'writes tricky scalars, keys, numbers and nesting byte for byte as yaml.v2 does',
    () => {
      const dir = join(work, 'yamlv2');
      cpSync(join(fixtures, '_yaml/yamlv2'), dir, { recursive: true });
      const env = { ...process.env, GOWORK: 'off', GOFLAGS: '-mod=mod' };
      execFileSync('go', ['mod', 'init', 'example.com/yamlv2'], { cwd: dir, env, stdio: 'ignore' });
      execFileSync('go', ['get', 'gopkg.in/yaml.v2@v2.4.0'], { cwd: dir, env, stdio: 'ignore' });
      execFileSync('go', ['build', '-o', 'yamlv2', '.'], { cwd: dir, env, stdio: 'ignore' });
      const input = readFileSync(join(fixtures, '_yaml/cases.json'), 'utf8');
      const theirs = execFileSync(join(dir, 'yamlv2'), { input, encoding: 'utf8' });
      expect(toYamlDocument(JSON.parse(input))).toBe(theirs);
    },
    GO_BUILD_MS,
  );
});
