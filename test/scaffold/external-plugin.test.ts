/**
 * kubebuilder's external plugin protocol, piece by piece: the arguments a plugin gets, how its answer is read, where
 * plugins are found, what is sent as the universe and what of the answer is written, and how a chain is resolved and
 * undone. The plugins here are one-line shell scripts; test/cli/external-plugin.test.ts runs a real one in chains.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { layoutKeys, resolveChain } from '../../src/scaffold/plugins/chain.js';
import { callPlugin } from '../../src/scaffold/plugins/external/call.js';
import {
  discoverExternalPlugins,
  pluginsRoot,
  type Discovery,
  type ExternalPlugin,
} from '../../src/scaffold/plugins/external/discover.js';
import { parseResponse, pluginArgs } from '../../src/scaffold/plugins/external/protocol.js';
import { readUniverse, writeUniverse } from '../../src/scaffold/plugins/external/universe.js';
import { snapshotProject } from '../../src/scaffold/snapshot.js';
import { tempDir } from '../support/files.js';

let dir: { path: string; remove: () => void };
beforeEach(() => {
  dir = tempDir('ks-external-');
});
afterEach(() => dir.remove());

/** Writes `files` (path to content) below `root`, creating folders. */
function write(root: string, files: Record<string, string | Buffer>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

/** A plugin that is a shell script with `body`, installed as <root>/<name>/<version>/<name>. */
function shellPlugin(body: string, name = 'sh-plugin', version = 'v1'): ExternalPlugin {
  const path = join(dir.path, 'plugins', name, version, name);
  write(dir.path, { [join('plugins', name, version, name)]: `#!/bin/sh\n${body}\n` });
  chmodSync(path, 0o755);
  return { name, version, key: `${name}/${version}`, path };
}

describe('the arguments a plugin gets', () => {
  it("are kubebuilder's: every --flag with the value after it, --plugins left out", () => {
    expect(pluginArgs(['--domain', 'my.domain', '--plugins', 'go/v4,x/v1', '--skip-install'])).toEqual([
      '--domain',
      'my.domain',
      '--skip-install',
    ]);
    expect(pluginArgs(['--group=crew', '--plugins=x/v1', '--on-call', '--team', 'a', '-h'])).toEqual([
      '--group=crew',
      '--on-call',
      '--team',
      'a',
    ]);
  });
});

describe("a plugin's answer", () => {
  it("is read with Go's key matching: Name or name, Description or description", () => {
    const answer = parseResponse(
      JSON.stringify({
        apiVersion: 'v1alpha1',
        universe: { 'a.txt': 'a' },
        flags: [
          { Name: 'team', Type: 'string', Default: 'core', Usage: 'owner' },
          { name: 'dry', type: 'bool' },
          { name: 'ratio', type: 'duration' },
        ],
        Metadata: { Description: 'd', examples: 'e' },
      }),
      'p/v1',
    );
    expect(answer).toEqual({
      universe: { 'a.txt': 'a' },
      flags: [
        { name: 'team', type: 'string', default: 'core', usage: 'owner' },
        { name: 'dry', type: 'bool', default: '', usage: '' },
        { name: 'ratio', type: 'string', default: '', usage: '' },
      ],
      metadata: { description: 'd', examples: 'e' },
    });
  });

  it('carries an error with its messages joined, as kubebuilder joins them', () => {
    expect(parseResponse('{"error":true,"errorMsgs":["one","two"]}', 'p/v1').error).toBe('one\ntwo');
  });

  it('is refused, naming the plugin and the field, when it is not a PluginResponse', () => {
    expect(() => parseResponse('[]', 'p/v1')).toThrow(
      'plugin p/v1 answered with an invalid PluginResponse: it is not a JSON object',
    );
    expect(() => parseResponse('{"universe":{"a":1}}', 'p/v1')).toThrow(
      'the content of "a" in "universe" is not a string',
    );
    expect(() => parseResponse('{"flags":[{"Name":"a b"}]}', 'p/v1')).toThrow('flags[0] has the name "a b"');
    expect(() => parseResponse('', 'p/v1')).toThrow(/not JSON .*\(nothing at all\)/);
  });
});

describe('calling a plugin', () => {
  it('sends the request on standard input, in the project folder', () => {
    const plugin = shellPlugin('cat > request.json; printf \'{"universe":{"a.txt":"a"}}\'');
    const sent = { apiVersion: 'v1alpha1', args: ['--x'], command: 'edit' as const, universe: {} };
    expect(callPlugin(plugin, sent, dir.path).universe).toEqual({ 'a.txt': 'a' });
    expect(JSON.parse(readFileSync(join(dir.path, 'request.json'), 'utf8'))).toEqual(sent);
  });

  const request = { apiVersion: 'v1alpha1', args: [], command: 'create api' as const, universe: {} };
  it('refuses output that is not UTF-8, not JSON, too large, or a failed exit, naming the plugin', () => {
    expect(() => callPlugin(shellPlugin('printf \'{"a":"\\377"}\''), request, dir.path)).toThrow(
      /plugin sh-plugin\/v1 \(.*\) answered `create api` with bytes that are not UTF-8 \(the first at offset 6/,
    );
    expect(() => callPlugin(shellPlugin('echo starting'), request, dir.path)).toThrow(
      /plugin sh-plugin\/v1 answered with something that is not JSON .*: "starting"; a plugin writes one PluginResponse on standard output and its logs on standard error/,
    );
    expect(() => callPlugin(shellPlugin('exit 3'), request, dir.path)).toThrow(
      /plugin sh-plugin\/v1 \(.*\) exited with status 3 for `create api` and wrote nothing on standard output/,
    );
    expect(() => callPlugin(shellPlugin('head -c 67200000 /dev/zero'), request, dir.path)).toThrow(
      /plugin sh-plugin\/v1 \(.*\) wrote more than 64 MiB on standard output for `create api`/,
    );
    const missing: ExternalPlugin = { name: 'gone', version: 'v1', key: 'gone/v1', path: join(dir.path, 'gone') };
    expect(() => callPlugin(missing, request, dir.path)).toThrow(
      /plugin gone\/v1 \(.*gone\) could not be run for `create api`/,
    );
  });
});

describe('where plugins are found', () => {
  const env = (vars: NodeJS.ProcessEnv, platform: NodeJS.Platform = 'linux') => ({
    env: vars,
    platform,
    home: '/home/u',
  });

  it("follows kubebuilder: EXTERNAL_PLUGINS_PATH, else XDG_CONFIG_HOME, else the system's config folder", () => {
    expect(pluginsRoot(env({ EXTERNAL_PLUGINS_PATH: dir.path, XDG_CONFIG_HOME: '/x' }))).toBe(dir.path);
    expect(pluginsRoot(env({ XDG_CONFIG_HOME: '/x' }))).toBe('/x/kubebuilder/plugins');
    expect(pluginsRoot(env({}))).toBe('/home/u/.config/kubebuilder/plugins');
    expect(pluginsRoot(env({}, 'darwin'))).toBe('/home/u/Library/Application Support/kubebuilder/plugins');
    expect(() => pluginsRoot(env({ EXTERNAL_PLUGINS_PATH: join(dir.path, 'none') }))).toThrow(
      /EXTERNAL_PLUGINS_PATH is .*none, which does not exist/,
    );
    expect(() => pluginsRoot(env({}, 'win32'))).toThrow(
      /Linux and macOS only .* not on win32; set EXTERNAL_PLUGINS_PATH/,
    );
  });

  it('finds <name>/<version>/<name> and <name>.<ext>, and says why a folder is not a usable plugin', () => {
    const root = join(dir.path, 'plugins');
    write(root, {
      'teams/v1/teams': '#!/bin/sh\n',
      'teams/v2-alpha/teams.sh': '#!/bin/sh\n',
      'teams/v3/README.md': 'not a plugin',
      'notexec/v1/notexec': '#!/bin/sh\n',
      'teams/latest/teams': '#!/bin/sh\n',
      'Upper/v1/Upper': '#!/bin/sh\n',
    });
    for (const p of ['teams/v1/teams', 'teams/v2-alpha/teams.sh', 'teams/latest/teams', 'Upper/v1/Upper'])
      chmodSync(join(root, p), 0o755);
    const found = discoverExternalPlugins({ env: { EXTERNAL_PLUGINS_PATH: root }, platform: 'linux', home: '/h' });
    expect(found.plugins.map((p) => [p.key, p.path.slice(root.length + 1)])).toEqual([
      ['teams/v1', 'teams/v1/teams'],
      ['teams/v2-alpha', 'teams/v2-alpha/teams.sh'],
    ]);
    expect(Object.fromEntries(found.problems)).toEqual({
      'Upper/v1': expect.stringContaining('is not a DNS-1123 subdomain'),
      'notexec/v1': expect.stringContaining('is not an executable file; make it one (chmod +x)'),
      'teams/latest': expect.stringContaining('the plugin version "latest" is not one kubebuilder reads'),
    });
  });
});

describe('the universe', () => {
  it("holds the project's text files, without .git, node_modules, build output, binaries and links", () => {
    const root = join(dir.path, 'p');
    write(root, {
      PROJECT: 'version: "3"\n',
      'api/v1/a_types.ts': 'export {}\n',
      '.git/HEAD': 'ref\n',
      'node_modules/x/index.js': 'x',
      'api/node_modules/y.js': 'y',
      'dist/main.js': 'built',
      'bin/kube-apiserver': Buffer.from([0x7f, 0x45, 0x4c, 0x46]),
      'docs/logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff]),
      'config/dist/kept.yaml': 'kept\n',
    });
    symlinkSync(join(root, 'PROJECT'), join(root, 'PROJECT.link'));
    expect(readUniverse(root)).toEqual({
      PROJECT: 'version: "3"\n',
      'api/v1/a_types.ts': 'export {}\n',
      'config/dist/kept.yaml': 'kept\n',
    });
  });

  it('writes back only what the answer changes or adds, and keeps PROJECT, with a warning', () => {
    const root = join(dir.path, 'p');
    write(root, { PROJECT: 'p\n', 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const sent = readUniverse(root);
    const result = writeUniverse(root, 'p/v1', sent, {
      PROJECT: 'changed\n',
      'a.txt': 'a\n',
      'b.txt': 'B\n',
      'new/c.txt': 'c\n',
    });
    expect(result.written).toEqual(['b.txt', 'new/c.txt']);
    expect(result.warnings).toEqual([expect.stringContaining('plugin p/v1 changed PROJECT; the change is not kept')]);
    expect(readFileSync(join(root, 'PROJECT'), 'utf8')).toBe('p\n');
    expect(readFileSync(join(root, 'b.txt'), 'utf8')).toBe('B\n');
  });

  it('refuses every path and content it cannot write, all at once, writing nothing', () => {
    const root = join(dir.path, 'p');
    write(root, { 'a.txt': 'a\n' });
    const answer = {
      'a.txt': 'changed\n',
      '../out.txt': 'x',
      '/etc/x': 'x',
      'config\\x.yaml': 'x',
      '.git/config': 'x',
      'sub/node_modules/m.js': 'x',
      './b.txt': 'x',
      'c//d.txt': 'x',
      'e.txt': 'lone \ud800 surrogate',
    };
    let message = '';
    try {
      writeUniverse(root, 'p/v1', readUniverse(root), answer);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message.split('\n')).toEqual([
      'plugin p/v1 answered with files scaffold does not write:',
      `  "../out.txt": the path leads out of the project ('..')`,
      `  "./b.txt": the path is not in normal form (no '.', no empty parts)`,
      `  ".git/config": scaffold does not let plugins write into .git/`,
      `  "/etc/x": the path is not relative to the project (use '/'-separated paths such as config/samples/x.yaml)`,
      `  "c//d.txt": the path is not in normal form (no '.', no empty parts)`,
      `  "config\\\\x.yaml": the path is not relative to the project (use '/'-separated paths such as config/samples/x.yaml)`,
      '  "e.txt": its content is not well-formed Unicode',
      '  "sub/node_modules/m.js": scaffold does not let plugins write into node_modules/',
    ]);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('a\n');
  });

  it('does not write through a link that leaves the project', () => {
    const root = join(dir.path, 'p');
    const outside = join(dir.path, 'outside');
    mkdirSync(outside);
    write(root, { 'a.txt': 'a\n' });
    symlinkSync(outside, join(root, 'linked'));
    expect(() => writeUniverse(root, 'p/v1', {}, { 'a.txt': 'new\n', 'linked/x.txt': 'x' })).toThrow(
      /plugin p\/v1's files were not written: linked is a symbolic link to .*outside, outside the project/,
    );
    expect(existsSync(join(outside, 'x.txt'))).toBe(false);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('a\n');
  });
});

describe('a snapshot of the project', () => {
  it('puts back changed, created and removed files and folders, and file modes', () => {
    const root = join(dir.path, 'p');
    write(root, { 'a.txt': 'a', 'keep/b.txt': 'b', 'gone.txt': 'g', 'node_modules/n.js': 'n' });
    chmodSync(join(root, 'a.txt'), 0o600);
    const snapshot = snapshotProject(root);
    write(root, { 'a.txt': 'A', 'new/deep/c.txt': 'c', 'keep/d.txt': 'd', 'node_modules/m.js': 'm' });
    chmodSync(join(root, 'a.txt'), 0o644);
    writeFileSync(join(root, 'gone.txt'), '');
    symlinkSync('a.txt', join(root, 'link'));
    expect(snapshot.restore()).toEqual([]);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('a');
    expect(statSync(join(root, 'a.txt')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(root, 'gone.txt'), 'utf8')).toBe('g');
    for (const p of ['new', 'keep/d.txt', 'link']) expect(existsSync(join(root, p)), p).toBe(false);
    expect(readFileSync(join(root, 'keep/b.txt'), 'utf8')).toBe('b');
    // node_modules is not the scaffold's: left as it is
    expect(existsSync(join(root, 'node_modules/m.js'))).toBe(true);
  });
});

describe('resolving a chain with external plugins', () => {
  const plugin = (key: string): ExternalPlugin => {
    const [name = '', version = ''] = key.split('/');
    return { name, version, key, path: `/plugins/${name}/${version}/${name}` };
  };
  const discovery =
    (keys: string[], problems: Record<string, string> = {}): (() => Discovery) =>
    () => ({
      root: '/plugins',
      plugins: keys.map(plugin),
      problems: new Map(Object.entries(problems)),
    });

  it("keeps the order given, finds a plugin by its name alone, and records it in PROJECT's layout on init", () => {
    const chain = resolveChain('teams,typescript/v1', 'init', { discover: discovery(['teams/v1']) });
    expect(chain).toEqual([{ kind: 'external', plugin: plugin('teams/v1') }, { kind: 'layout' }]);
    expect(layoutKeys(chain)).toEqual(['teams/v1', 'typescript.kubescaffold.io/v1']);
    expect(resolveChain('teams.acme.io/v1', 'create api', { discover: discovery(['teams.acme.io/v1']) })).toEqual([
      { kind: 'external', plugin: plugin('teams.acme.io/v1') },
    ]);
  });

  it('refuses an ambiguous plugin and one whose folder is not usable', () => {
    expect(() => resolveChain('teams', 'edit', { discover: discovery(['teams/v1', 'teams/v2']) })).toThrow(
      'plugin "teams" in --plugins is ambiguous (external plugins teams/v1, teams/v2); give its version, e.g. teams/v1',
    );
    expect(() =>
      resolveChain('teams/v1', 'edit', {
        discover: discovery([], { 'teams/v1': '/p/teams is not an executable file' }),
      }),
    ).toThrow('plugin "teams/v1" in --plugins cannot be used: /p/teams is not an executable file');
  });
});
