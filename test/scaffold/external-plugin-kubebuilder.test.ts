/**
 * The same external plugin (test/fixtures/external-plugin/teamlabels.mjs) run by the real kubebuilder v4.16.0 and by
 * scaffold, in a chain after each tool's layout plugin (go/v4 there, typescript/v1 here): init, then create api with
 * the plugin's flags, then a create api the plugin refuses. What corresponds is compared: PROJECT's plugin chain, the
 * files the plugin wrote, what the plugin was sent, and how its error is reported.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { installTeamlabels, TEAMLABELS_KEY } from '../support/external-plugin.js';
import { tempDir } from '../support/files.js';
import { scaffoldInProcess, type CliRun } from '../support/in-process-cli.js';
import { findKubebuilder, goEnv } from '../support/kubebuilder.js';
import { GO_BUILD_MS } from '../support/limits.js';
import { onPath, peerAvailable, requirePeer } from '../support/peers.js';

// init from a checkout packs kubescaffold's packages (npm pack, seconds); registry ranges are enough here.
vi.mock('../../src/scaffold/dependencies.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/scaffold/dependencies.js')>();
  return { ...original, projectDependencies: (version: string) => original.registryDependencies(version) };
});

const VERSION = 'v4.16.0';
const what = `an external plugin in a chain, against kubebuilder ${VERSION}`;
const available = peerAvailable(what, onPath('go') ? undefined : 'Go is not installed (it builds kubebuilder)');

const GO_LAYOUT = 'go.kubebuilder.io/v4';
const TS_LAYOUT = 'typescript.kubescaffold.io/v1';
const pluginFlags = ['--team=crew-team', '--on-call', '--escalation-minutes', '15'];
const api = ['create', 'api', '--group', 'crew', '--version', 'v1', '--kind', 'Captain', '--resource', '--controller'];
const refused = ['create', 'api', '--group', 'crew', '--version', 'v1', '--kind', 'Mate', '--team=Mate_Team'];

interface Request {
  apiVersion: string;
  command: string;
  args: string[];
  universe: string[];
  pluginChain?: string[];
  config?: { domain?: string; projectName?: string; layout?: string[]; resources?: Array<Record<string, unknown>> };
}

/** One tool's run: its project, the requests the plugin received, and the refused create api's result. */
interface Side {
  root: string;
  requests: Request[];
  refusal: CliRun;
  /** The project's files before the refused create api, and after it. */
  before: string;
  after: string;
}

/** The arguments the plugin reads: the resource's and its own flags, with their values. */
const pluginView = (args: string[]): string[] =>
  args.filter(
    (a, i) =>
      /^--(group|version|kind|team|on-call|escalation-minutes)(=|$)/.test(a) ||
      /^--(group|version|kind|team|escalation-minutes)$/.test(args[i - 1] ?? ''),
  );
/** Each tool's layout plugin under one name. */
const sameLayout = (keys: readonly string[] | undefined): string[] =>
  (keys ?? []).map((k) => (k === GO_LAYOUT ? TS_LAYOUT : k)).sort();
const readRequests = (file: string): Request[] =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Request);
const listing = (root: string): string =>
  spawnSync('find', ['.', '-not', '-path', './.git*'], { cwd: root, encoding: 'utf8' })
    .stdout.split('\n')
    .sort()
    .join('\n');

describe.skipIf(!available)(what, () => {
  let plugins: ReturnType<typeof installTeamlabels>;
  let work: { path: string; remove: () => void };
  let theirs: Side;
  let ours: Side;

  beforeAll(async () => {
    const kubebuilder = await requirePeer(what, () => findKubebuilder(VERSION));
    plugins = installTeamlabels();
    work = tempDir('ks-external-plugin-kubebuilder-');

    const theirRoot = join(work.path, 'kb', 'project');
    mkdirSync(theirRoot, { recursive: true });
    const theirLog = join(work.path, 'kb.jsonl');
    const env = { ...goEnv(), EXTERNAL_PLUGINS_PATH: plugins.root, TEAMLABELS_RECORD: theirLog };
    const kb = (args: string[]): CliRun => {
      const r = spawnSync(kubebuilder, args, { cwd: theirRoot, env, encoding: 'utf8' });
      return { code: r.status ?? -1, output: `${r.stdout}${r.stderr}` };
    };
    const must = (run: CliRun, args: string[]): void => {
      if (run.code !== 0) throw new Error(`kubebuilder ${args.join(' ')} failed:\n${run.output}`);
    };
    const init = [
      'init',
      `--plugins=go/v4,${TEAMLABELS_KEY}`,
      '--domain=example.com',
      '--repo=example.com/project',
      '--fetch-deps=false',
      '--skip-go-version-check',
      '--team=crew-team',
    ];
    must(kb(init), init);
    must(kb([...api, '--make=false', ...pluginFlags]), api);
    const theirBefore = listing(theirRoot);
    const theirRefusal = kb([...refused, '--make=false', '--resource', '--controller']);
    theirs = {
      root: theirRoot,
      requests: readRequests(theirLog),
      refusal: theirRefusal,
      before: theirBefore,
      after: listing(theirRoot),
    };

    const ourRoot = join(work.path, 'ks', 'project');
    mkdirSync(ourRoot, { recursive: true });
    const ourLog = join(work.path, 'ks.jsonl');
    const ourEnv = { EXTERNAL_PLUGINS_PATH: plugins.root, TEAMLABELS_RECORD: ourLog };
    const scaffold = async (args: string[]): Promise<CliRun> => {
      const run = await scaffoldInProcess(ourRoot, args, ourEnv);
      if (run.code !== 0) throw new Error(`scaffold ${args.join(' ')} failed:\n${run.output}`);
      return run;
    };
    await scaffold([
      'init',
      `--plugins=typescript/v1,${TEAMLABELS_KEY}`,
      '--domain=example.com',
      '--skip-install',
      '--team=crew-team',
    ]);
    await scaffold([...api, ...pluginFlags]);
    const ourBefore = listing(ourRoot);
    const ourRefusal = await scaffoldInProcess(ourRoot, refused, ourEnv);
    ours = {
      root: ourRoot,
      requests: readRequests(ourLog),
      refusal: ourRefusal,
      before: ourBefore,
      after: listing(ourRoot),
    };
  }, GO_BUILD_MS);
  afterAll(() => {
    work?.remove();
    plugins?.remove();
  });

  const project = (side: Side): { layout: string[]; plugins?: unknown } =>
    parse(readFileSync(join(side.root, 'PROJECT'), 'utf8')) as { layout: string[]; plugins?: unknown };
  const file = (side: Side, path: string): string => readFileSync(join(side.root, path), 'utf8');
  const scaffoldRequests = (side: Side): Request[] =>
    side.requests.filter((r) => r.command === 'init' || r.command === 'create api');

  it("records the plugin in PROJECT's layout after the layout plugin, and nothing in PROJECT's plugins", () => {
    expect(project(theirs).layout).toEqual([GO_LAYOUT, TEAMLABELS_KEY]);
    expect(project(ours).layout).toEqual([TS_LAYOUT, TEAMLABELS_KEY]);
    expect(project(theirs).plugins).toBeUndefined();
    expect(project(ours).plugins).toBeUndefined();
  });

  it('ends with the files the plugin wrote as kubebuilder has them, .go files being .ts here', () => {
    expect(file(ours, '.github/CODEOWNERS')).toBe(file(theirs, '.github/CODEOWNERS').replaceAll('.go ', '.ts '));
    expect(file(ours, '.github/CODEOWNERS')).toContain('/api/v1/captain_types.ts @example/crew-team');
    expect(file(ours, 'config/ownership/captain.yaml')).toBe(file(theirs, 'config/ownership/captain.yaml'));
  });

  it('sends the plugin the same requests: command, its flags, the plugin chain, PROJECT', () => {
    const view = (side: Side) =>
      scaffoldRequests(side).map((r) => ({
        apiVersion: r.apiVersion,
        command: r.command,
        args: pluginView(r.args),
        // kubebuilder moves the running plugin to the front of pluginChain (and of config.layout): the same keys
        pluginChain: sameLayout(r.pluginChain),
        domain: r.config?.domain,
        projectName: r.config?.projectName,
        layout: sameLayout(r.config?.layout),
        resources: (r.config?.resources ?? []).map(({ group, version, kind, domain }) => ({
          group,
          version,
          kind,
          domain,
        })),
      }));
    expect(view(ours)).toEqual(view(theirs));
    expect(view(ours).map((r) => r.command)).toEqual(['init', 'create api', 'create api']);
    expect(view(ours)[1]!.args).toEqual(['--group', 'crew', '--version', 'v1', '--kind', 'Captain', ...pluginFlags]);
  });

  it("sends the files the layout plugin wrote before it in the universe, and asks for the plugin's flags first", () => {
    const [theirInit, theirApi] = scaffoldRequests(theirs);
    const [ourInit, ourApi] = scaffoldRequests(ours);
    expect(theirInit!.universe).toContain('cmd/main.go');
    expect(ourInit!.universe).toContain('cmd/main.ts');
    expect(theirApi!.universe).toEqual(expect.arrayContaining(['PROJECT', 'api/v1/captain_types.go']));
    expect(ourApi!.universe).toEqual(expect.arrayContaining(['PROJECT', 'api/v1/captain_types.ts']));
    for (const side of [theirs, ours]) {
      const flags = side.requests.filter((r) => r.command === 'flags');
      expect(flags.map((r) => r.args[0])).toEqual(expect.arrayContaining(['--init', '--api']));
      for (const r of flags) expect(r.universe).toEqual([]);
    }
  });

  it("reports the plugin's error messages and fails; scaffold also takes back its own create api", () => {
    const messages = [
      '--team "Mate_Team" is not a team name',
      'use lowercase letters, digits and dashes, e.g. --team=crew-team',
    ];
    expect(theirs.refusal.code).not.toBe(0);
    expect(theirs.refusal.output).toContain(
      `unable to scaffold with "${TEAMLABELS_KEY}": error making request to external plugin: ${messages.join('\n')}`,
    );
    expect(ours.refusal.code).toBe(1);
    expect(ours.refusal.output).toContain(
      `Error: plugin ${TEAMLABELS_KEY} failed to scaffold \`create api\`:\n  ${messages.join('\n  ')}`,
    );
    expect(ours.after).toBe(ours.before);
    // kubebuilder leaves go/v4's files for Mate behind (PROJECT does not record it)
    expect(theirs.after).toContain('./api/v1/mate_types.go');
    expect(file(theirs, 'PROJECT')).not.toContain('Mate');
  });
});
