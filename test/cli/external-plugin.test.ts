/**
 * A kubebuilder external plugin (test/fixtures/external-plugin/teamlabels.mjs) in chains with kubescaffold's own
 * scaffold, through the CLI: its flags declared before parsing, its files written back from the universe, its errors
 * and its broken answers reported with nothing changed.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { initProject, tempProjectDir } from '../scaffold/helpers.js';
import { installTeamlabels, TEAMLABELS_KEY } from '../support/external-plugin.js';
import { scaffoldInProcess as scaffold } from '../support/in-process-cli.js';
import { tempDir } from '../support/files.js';

// `scaffold init` from a checkout packs kubescaffold's packages into vendor/ (npm pack, seconds); the registry ranges
// that an installed CLI writes are enough here.
vi.mock('../../src/scaffold/dependencies.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/scaffold/dependencies.js')>();
  return { ...original, projectDependencies: (version: string) => original.registryDependencies(version) };
});

const captain = ['create', 'api', '--group', 'crew', '--version', 'v1', '--kind', 'Captain'];

let plugins: ReturnType<typeof installTeamlabels>;
let record: { path: string; remove: () => void };
let project: { root: string; cleanup: () => void };
const savedPluginsPath = process.env.EXTERNAL_PLUGINS_PATH;

/** The requests the plugin received since the test began (universe: file names only). */
const requests = (): Array<Record<string, unknown> & { universe: string[] }> =>
  existsSync(join(record.path, 'requests.jsonl'))
    ? readFileSync(join(record.path, 'requests.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown> & { universe: string[] })
    : [];
/** Every file, folder and link below the project, with file contents and link targets (links are not followed). */
function tree(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string): void => {
    for (const entry of readdirSync(join(root, rel), { withFileTypes: true })) {
      const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isSymbolicLink()) out.set(path, `-> ${readlinkSync(join(root, path))}`);
      else if (entry.isDirectory()) {
        out.set(`${path}/`, '');
        walk(path);
      } else out.set(path, readFileSync(join(root, path), 'utf8'));
    }
  };
  walk('');
  return out;
}
const read = (path: string): string => readFileSync(join(project.root, path), 'utf8');
const layout = (): unknown => (parse(read('PROJECT')) as { layout: unknown }).layout;

beforeAll(() => {
  plugins = installTeamlabels();
  process.env.EXTERNAL_PLUGINS_PATH = plugins.root;
});
afterAll(() => {
  if (savedPluginsPath === undefined) delete process.env.EXTERNAL_PLUGINS_PATH;
  else process.env.EXTERNAL_PLUGINS_PATH = savedPluginsPath;
  plugins.remove();
});
beforeEach(() => {
  record = tempDir('ks-teamlabels-record-');
  process.env.TEAMLABELS_RECORD = join(record.path, 'requests.jsonl');
  project = tempProjectDir('project');
});
afterEach(() => {
  delete process.env.TEAMLABELS_RECORD;
  project.cleanup();
  record.remove();
});

/** A project whose PROJECT's layout runs teamlabels after kubescaffold's scaffold, as init --plugins records it. */
function initWithPlugin(): void {
  initProject(project.root, { layout: ['typescript.kubescaffold.io/v1', TEAMLABELS_KEY] });
}

describe('init --plugins with an external plugin', () => {
  it("runs the plugin after kubescaffold's init and records it in PROJECT's layout", async () => {
    const run = await scaffold(project.root, [
      'init',
      '--domain=example.com',
      '--skip-install',
      `--plugins=typescript/v1,${TEAMLABELS_KEY}`,
      '--team=crew-team',
    ]);
    expect(run.code, run.output).toBe(0);
    expect(layout()).toEqual(['typescript.kubescaffold.io/v1', TEAMLABELS_KEY]);
    expect(read('.github/CODEOWNERS')).toBe('# Who owns what (written by teamlabels/v1)\n* @example/crew-team\n');
    expect(run.output).toContain(`Plugin ${TEAMLABELS_KEY} wrote:\n  .github/CODEOWNERS`);
    const [flags, init] = requests();
    expect(flags).toMatchObject({ command: 'flags', args: ['--init'], universe: [] });
    expect(init).toMatchObject({
      apiVersion: 'v1alpha1',
      command: 'init',
      args: ['--domain=example.com', '--skip-install', '--team=crew-team'],
      pluginChain: ['typescript.kubescaffold.io/v1', TEAMLABELS_KEY],
      config: {
        domain: 'example.com',
        projectName: 'project',
        layout: ['typescript.kubescaffold.io/v1', TEAMLABELS_KEY],
      },
    });
    expect(init!.universe).toContain('cmd/main.ts');
  });
});

describe("create api with the plugin in PROJECT's layout", () => {
  beforeEach(initWithPlugin);

  it("runs kubescaffold's create api, then the plugin, which finds the new files in its universe", async () => {
    const run = await scaffold(project.root, [
      ...captain,
      '--team=crew-team',
      '--on-call',
      '--escalation-minutes',
      '15',
    ]);
    expect(run.code, run.output).toBe(0);
    expect(read('.github/CODEOWNERS')).toBe(
      [
        '# Who owns what (written by teamlabels/v1)',
        '/api/v1/captain_types.ts @example/crew-team',
        '/internal/controller/captain_controller.ts @example/crew-team',
        '',
      ].join('\n'),
    );
    expect(parse(read('config/ownership/captain.yaml'))).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'captain-ownership' },
      data: { group: 'crew.example.com', kind: 'Captain', team: 'crew-team', onCall: 'true', escalationMinutes: '15' },
    });
    const api = requests().find((r) => r.command === 'create api')!;
    expect(api.args).toEqual([
      '--group',
      'crew',
      '--version',
      'v1',
      '--kind',
      'Captain',
      '--team=crew-team',
      '--on-call',
      '--escalation-minutes',
      '15',
    ]);
    expect(api.pluginChain).toEqual(['typescript.kubescaffold.io/v1', TEAMLABELS_KEY]);
    expect((api.config as { resources: unknown[] }).resources).toEqual([
      expect.objectContaining({ group: 'crew', version: 'v1', kind: 'Captain' }),
    ]);
    expect(api.universe).toContain('api/v1/captain_types.ts');
    expect(run.output).toMatch(
      /Wrote:\n(.|\n)*api\/v1\/captain_types\.ts(.|\n)*Plugin teamlabels\/v1 wrote:\n {2}\.github\/CODEOWNERS\n {2}config\/ownership\/captain\.yaml/,
    );
  });

  it("shows the plugin's flags and help text in --help", async () => {
    const run = await scaffold(project.root, ['create', 'api', '--help']);
    expect(run.code).toBe(0);
    // commander wraps the descriptions, so whitespace is any whitespace
    expect(run.output).toMatch(
      /--team <value>\s+the team that owns what is scaffolded\s+\(plugin\s+teamlabels\/v1\)\s+\(default:\s+"platform"\)/,
    );
    expect(run.output).toMatch(/--on-call \[bool\]\s+the team is paged for this kind\s+\(plugin\s+teamlabels\/v1\)/);
    expect(run.output).toMatch(/--escalation-minutes <int>/);
    expect(run.output).toContain('teamlabels records which team owns what the api subcommand scaffolds');
  });

  it('refuses an unknown flag with the usual one-line error, and a flag value of the wrong type, changing nothing', async () => {
    const before = tree(project.root);
    const unknown = await scaffold(project.root, [...captain, '--tema=crew-team']);
    expect(unknown.code).toBe(1);
    expect(unknown.output.split('\n')[0]).toBe("error: unknown option '--tema=crew-team'");
    const typed = await scaffold(project.root, [...captain, '--escalation-minutes=soon']);
    expect(typed.code).toBe(1);
    expect(typed.output).toContain(`argument 'soon' is invalid. expected an integer, got "soon"`);
    expect(tree(project.root)).toEqual(before);
    expect(requests().map((r) => r.command)).toEqual(['flags', 'flags']);
  });

  it("reports the plugin's error and takes back the files kubescaffold's create api wrote", async () => {
    const before = tree(project.root);
    const run = await scaffold(project.root, [...captain, '--team=Crew_Team']);
    expect(run.code).toBe(1);
    expect(run.output).toContain(
      [
        'Error: plugin teamlabels/v1 failed to scaffold `create api`:',
        '  --team "Crew_Team" is not a team name',
        '  use lowercase letters, digits and dashes, e.g. --team=crew-team',
        'nothing was changed: the files that typescript/v1 wrote before it were put back as they were',
      ].join('\n'),
    );
    expect(tree(project.root)).toEqual(before);
    expect(existsSync(join(project.root, 'api'))).toBe(false);
  });

  it("runs only the plugins --plugins names, in its order (kubebuilder's semantics)", async () => {
    const alone = await scaffold(project.root, [...captain, `--plugins=${TEAMLABELS_KEY}`]);
    expect(alone.code, alone.output).toBe(0);
    expect(existsSync(join(project.root, 'api'))).toBe(false);
    expect(read('PROJECT')).not.toContain('Captain');
    expect(read('config/ownership/captain.yaml')).toContain('team: platform');

    const first = await scaffold(project.root, [
      ...captain.slice(0, -1),
      'Mate',
      `--plugins=${TEAMLABELS_KEY},typescript/v1`,
    ]);
    expect(first.code, first.output).toBe(0);
    // the plugin ran before the types existed
    expect(read('.github/CODEOWNERS')).not.toContain('mate_types');
    expect(existsSync(join(project.root, 'api/v1/mate_types.ts'))).toBe(true);
  });

  it("does not keep the plugin's changes to PROJECT, and says so", async () => {
    const run = await scaffold(project.root, captain, { TEAMLABELS_MISBEHAVE: 'project' });
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain('Warning: plugin teamlabels/v1 changed PROJECT; the change is not kept');
    expect(read('PROJECT')).not.toContain('edited by teamlabels');
    expect(read('PROJECT')).toContain('kind: Captain');
  });

  it('passes every flag to a plugin that does not say which flags it takes', async () => {
    const run = await scaffold(project.root, [...captain, '--team', 'crew-team', '--anything=goes'], {
      TEAMLABELS_NO_FLAGS: '1',
    });
    expect(run.code, run.output).toBe(0);
    expect(requests().find((r) => r.command === 'create api')?.args).toEqual([
      ...['--group', 'crew', '--version', 'v1', '--kind', 'Captain'],
      ...['--team', 'crew-team', '--anything=goes'],
    ]);
  });

  it('refuses an answer that breaks the rules (here: a path out of the project), naming the plugin', async () => {
    const before = tree(project.root);
    const run = await scaffold(project.root, captain, { TEAMLABELS_MISBEHAVE: 'escape' });
    expect(run.code).toBe(1);
    expect(run.output).toContain(
      'Error: plugin teamlabels/v1 answered with files scaffold does not write:\n  "../outside.txt": the path leads out of the project',
    );
    expect(run.output).toMatch(/\nnothing was changed: the files that typescript\/v1 wrote before it were put back/);
    expect(tree(project.root)).toEqual(before);
  });
});

describe('the other subcommands with the plugin in the chain', () => {
  beforeEach(initWithPlugin);

  it('create webhook and edit run it after their own scaffold', async () => {
    expect((await scaffold(project.root, [...captain, '--team=crew-team'])).code).toBe(0);
    const webhook = await scaffold(project.root, [
      ...['create', 'webhook', '--group', 'crew', '--version', 'v1', '--kind', 'Captain', '--defaulting'],
      '--team=crew-team',
    ]);
    expect(webhook.code, webhook.output).toBe(0);
    expect(read('.github/CODEOWNERS')).toContain('/internal/webhook/v1/captain_webhook.ts @example/crew-team\n');
    const edit = await scaffold(project.root, ['edit', '--team=bridge']);
    expect(edit.code, edit.output).toBe(0);
    expect(read('.github/CODEOWNERS').split('\n')[1]).toBe('* @example/bridge');
  });
});

describe("a plugin whose flag is one of the command's, with another kind of value", () => {
  it('stops the command, naming both', async () => {
    // a plugins folder of its own, so that the other tests see teamlabels alone
    const root = join(record.path, 'plugins');
    mkdirSync(join(root, 'clash', 'v1'), { recursive: true });
    const answer = '{"flags":[{"Name":"force","Type":"string"}]}';
    writeFileSync(join(root, 'clash', 'v1', 'clash'), `#!/bin/sh\nprintf '${answer}'\n`, { mode: 0o755 });
    initProject(project.root);
    const run = await scaffold(project.root, [...captain, '--plugins=typescript/v1,clash/v1'], {
      EXTERNAL_PLUGINS_PATH: root,
    });
    expect(run.code).toBe(1);
    expect(run.output).toBe(
      'Error: plugin clash/v1 declares --force as a string flag, but `scaffold create api` has --force as a true/false flag; the two cannot share it',
    );
  });
});

describe("a plugin that PROJECT's layout names but that is not installed", () => {
  beforeEach(() => initProject(project.root, { layout: ['typescript.kubescaffold.io/v1', 'gone/v1'] }));

  it('stops the command before anything is written, saying where plugins are looked for', async () => {
    const before = tree(project.root);
    const run = await scaffold(project.root, captain);
    expect(run.code).toBe(1);
    expect(run.output).toMatch(
      /^Error: unknown plugin "gone\/v1" in PROJECT's layout; .* an external plugin is an executable <name>\/<version>\/<name> in .*, which holds teamlabels\/v1$/,
    );
    expect(tree(project.root)).toEqual(before);
    const help = await scaffold(project.root, ['create', 'api', '--help']);
    expect(help.code).toBe(0);
    expect(help.output).toContain('Note: unknown plugin "gone/v1"');
  });
});

describe('create api --plugins with a missing plugins folder', () => {
  it('names EXTERNAL_PLUGINS_PATH when it does not exist', async () => {
    initProject(project.root);
    const run = await scaffold(project.root, [...captain, '--plugins=teamlabels/v1'], {
      EXTERNAL_PLUGINS_PATH: join(project.root, 'no-such-folder'),
    });
    expect(run.code).toBe(1);
    expect(run.output).toMatch(/^Error: EXTERNAL_PLUGINS_PATH is .*no-such-folder, which does not exist/);
  });
});
