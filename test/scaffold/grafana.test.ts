/**
 * `edit --plugins=grafana/v1-alpha`: the dashboards and the custom-metrics config it writes, the custom-metrics
 * dashboard a second run draws from that config, its refusals, and its files against the real kubebuilder's.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { editGrafana } from '../../src/scaffold/plugins/grafana/index.js';
import { replayCommandLine } from '../../src/scaffold/plugins/registry.js';
import { builtinSteps, resolveChain } from '../../src/scaffold/plugins/chain.js';
import { initProject, snapshotTree, tempProjectDir } from './helpers.js';
import { tempDir } from '../support/files.js';
import { findKubebuilder, goEnv, KUBEBUILDER_VERSION } from '../support/kubebuilder.js';
import { onPath, peerAvailable, requirePeer } from '../support/peers.js';
import { GO_BUILD_MS } from '../support/limits.js';

const DASHBOARDS = ['grafana/controller-runtime-metrics.json', 'grafana/controller-resources-metrics.json'];
const CONFIG = 'grafana/custom-metrics/config.yaml';
const CUSTOM = 'grafana/custom-metrics/custom-metrics-dashboard.json';

/** A config that exercises every rule: derived exprs and units per type, an _info table, a given expr, dropped entries. */
const customConfig = `customMetrics:
  - metric: memcached_operator_reconcile_total
    type: counter
  - metric: go_memstats_heap_alloc_bytes
    type: gauge
  - metric: foo_request_duration_seconds
    type: histogram
  - metric: operator_build_info
    type: Gauge
  - metric: cache_hit_ratio
    type: gauge
    unit: percentunit
  - metric: with_expr
    expr: sum(rate(with_expr[5m]))
  - metric: no_type
  - type: counter
  - metric: bad_type
    type: summary
`;

interface Panel {
  title: string;
  type: string;
  fieldConfig: { defaults: { unit: string } };
  targets: Array<{ expr: string }>;
  transformations?: unknown[];
}

const read = (root: string, path: string): string => readFileSync(join(root, path), 'utf8');

describe('edit --plugins=grafana/v1-alpha', () => {
  let project: { root: string; cleanup: () => void };
  beforeEach(() => {
    project = tempProjectDir('project');
    initProject(project.root);
  });
  afterEach(() => project.cleanup());

  it('writes both dashboards and the commented custom-metrics config, and records the plugin in PROJECT', () => {
    const result = editGrafana(project.root);
    expect(result.written).toEqual([...DASHBOARDS, CONFIG, 'PROJECT'].sort());
    for (const path of DASHBOARDS) expect(JSON.parse(read(project.root, path))).toHaveProperty('panels');
    expect(parse(read(project.root, CONFIG))).toEqual({ customMetrics: null });
    expect((parse(read(project.root, 'PROJECT')) as { plugins: unknown }).plugins).toEqual({
      'grafana.kubebuilder.io/v1-alpha': {},
    });
  });

  it('draws a custom-metrics dashboard from the config on a second run, keeping the config and noting dropped entries', () => {
    editGrafana(project.root);
    writeFileSync(join(project.root, CONFIG), customConfig);
    const result = editGrafana(project.root);
    expect(result.written).toEqual([...DASHBOARDS, CUSTOM].sort());
    expect(read(project.root, CONFIG)).toBe(customConfig);
    expect(result.notes.filter((n) => n.includes('skipped'))).toEqual([
      `${CONFIG}: skipped customMetrics[6] (no_type): needs an expr, or a metric with type counter, gauge or histogram`,
      `${CONFIG}: skipped customMetrics[7]: needs an expr, or a metric with type counter, gauge or histogram`,
      `${CONFIG}: skipped customMetrics[8] (bad_type): needs an expr, or a metric with type counter, gauge or histogram`,
    ]);
    const panels = (JSON.parse(read(project.root, CUSTOM)) as { panels: Panel[] }).panels;
    expect(panels.map((p) => [p.title, p.type, p.fieldConfig.defaults.unit, p.targets[0]!.expr])).toEqual([
      [
        'memcached_operator_reconcile_total (counter)',
        'timeseries',
        'none',
        'sum(rate(memcached_operator_reconcile_total{job="$job", namespace="$namespace"}[5m])) by (instance, pod)',
      ],
      ['go_memstats_heap_alloc_bytes (gauge)', 'timeseries', 'bytes', 'go_memstats_heap_alloc_bytes'],
      [
        'foo_request_duration_seconds (histogram)',
        'timeseries',
        's',
        'histogram_quantile(0.90, sum by(instance, le) (rate(foo_request_duration_seconds{job="$job", namespace="$namespace"}[5m])))',
      ],
      ['operator_build_info (Gauge)', 'table', 'none', 'operator_build_info'],
      ['cache_hit_ratio (gauge)', 'timeseries', 'percentunit', 'cache_hit_ratio'],
      ['with_expr ()', 'timeseries', 'none', 'sum(rate(with_expr[5m]))'],
    ]);
    expect(panels[3]!.transformations).toEqual([{ id: 'labelsToFields', options: { mode: 'rows' } }]);
  });

  it('writes no custom-metrics dashboard while the config lists no metric', () => {
    editGrafana(project.root);
    expect(editGrafana(project.root).written).toEqual([...DASHBOARDS].sort());
  });

  it.each([
    ['not YAML', 'customMetrics: [\n', /grafana\/custom-metrics\/config.yaml is not valid YAML/],
    ['a list where a mapping belongs', '- metric: x\n', /config.yaml must be a mapping with a customMetrics list/],
    [
      'a field that is not a string',
      'customMetrics:\n  - metric: x\n    type: gauge\n    unit: 5\n',
      /customMetrics\[0\]\.unit must be a string/,
    ],
    [
      'an expr with a bare double quote',
      'customMetrics:\n  - metric: x\n    type: gauge\n  - metric: y\n    expr: y{job="a"}\n',
      /customMetrics\[1\]\.expr goes into the dashboard's JSON as it is, so it must be valid inside a JSON string: write its double quotes as \\"/,
    ],
  ])('refuses a config that is %s, changing nothing', (_, text, message) => {
    mkdirSync(join(project.root, 'grafana/custom-metrics'), { recursive: true });
    writeFileSync(join(project.root, CONFIG), text);
    const before = snapshotTree(project.root);
    expect(() => editGrafana(project.root)).toThrow(message);
    expect(snapshotTree(project.root)).toEqual(before);
  });

  it('refuses to run outside a project', () => {
    const empty = tempDir();
    try {
      expect(() => editGrafana(empty.path)).toThrow(/no PROJECT file/);
      expect(snapshotTree(empty.path).size).toBe(0);
    } finally {
      empty.remove();
    }
  });
});

describe('the grafana plugin on the command line', () => {
  const bin = fileURLToPath(new URL('../../bin/scaffold.js', import.meta.url));
  let dir: { path: string; remove: () => void };
  beforeEach(() => {
    dir = tempDir('ks-grafana-cli-');
  });
  afterEach(() => dir.remove());
  const scaffold = (...args: string[]) =>
    spawnSync(process.execPath, [bin, ...args], { cwd: dir.path, encoding: 'utf8' });

  it('runs on init --plugins=grafana.kubebuilder.io/v1-alpha and on edit --plugins=grafana/v1-alpha', () => {
    const init = scaffold(
      'init',
      '--domain',
      'example.com',
      '--skip-install',
      '--plugins=grafana.kubebuilder.io/v1-alpha',
    );
    expect(init.stderr).toBe('');
    expect(init.status).toBe(0);
    expect(init.stdout).toContain('grafana/controller-runtime-metrics.json');
    writeFileSync(
      join(dir.path, CONFIG),
      'customMetrics:\n  - metric: controller_runtime_reconcile_total\n    type: counter\n',
    );
    const edit = scaffold('edit', '--plugins=grafana/v1-alpha');
    expect(edit.status).toBe(0);
    expect(edit.stdout).toContain(CUSTOM);
  });
});

const available = peerAvailable(
  `grafana plugin comparison with kubebuilder ${KUBEBUILDER_VERSION}`,
  process.env.KUBEBUILDER || onPath('go')
    ? undefined
    : 'Go is not installed (it builds kubebuilder) and KUBEBUILDER is not set',
);

describe.skipIf(!available)(`the grafana plugin's files against kubebuilder ${KUBEBUILDER_VERSION}`, () => {
  let ours: { root: string; cleanup: () => void };
  let theirs: { path: string; remove: () => void };
  let kubebuilder: (...args: string[]) => void;

  beforeAll(async () => {
    const binary = await requirePeer(
      `grafana plugin comparison with kubebuilder ${KUBEBUILDER_VERSION}`,
      findKubebuilder,
    );
    theirs = tempDir('ks-kubebuilder-grafana-');
    kubebuilder = (...args) => {
      try {
        execFileSync(binary, args, { cwd: theirs.path, env: goEnv(), stdio: 'pipe' });
      } catch (err) {
        throw new Error(
          `kubebuilder ${args.join(' ')} failed: ${(err as { stderr?: Buffer }).stderr?.toString() ?? err}`,
        );
      }
    };
    kubebuilder(
      'init',
      '--domain=example.com',
      '--repo=example.com/project',
      '--fetch-deps=false',
      '--skip-go-version-check',
    );
    kubebuilder('edit', '--plugins=grafana.kubebuilder.io/v1-alpha');
    ours = tempProjectDir('project');
    initProject(ours.root);
    editGrafana(ours.root);
  }, GO_BUILD_MS);
  afterAll(() => {
    ours?.cleanup();
    theirs?.remove();
  });

  it('writes the dashboards and the config byte for byte as kubebuilder does', () => {
    for (const path of [...DASHBOARDS, CONFIG]) expect(read(ours.root, path), path).toBe(read(theirs.path, path));
  });

  it('records the plugin in PROJECT as kubebuilder does', () => {
    const plugins = (root: string) => (parse(read(root, 'PROJECT')) as { plugins: unknown }).plugins;
    expect(plugins(ours.root)).toEqual(plugins(theirs.path));
  });

  it('draws the custom-metrics dashboard byte for byte as kubebuilder does from the same config', () => {
    for (const root of [ours.root, theirs.path]) writeFileSync(join(root, CONFIG), customConfig);
    kubebuilder('edit', '--plugins=grafana.kubebuilder.io/v1-alpha');
    editGrafana(ours.root);
    expect(read(ours.root, CUSTOM)).toBe(read(theirs.path, CUSTOM));
  });
});

describe('the grafana plugin in the registry', () => {
  it('is chosen by its full key, short key or name on init and edit, and replays as one edit', async () => {
    const [spec] = builtinSteps(resolveChain('grafana', 'edit'));
    expect(spec?.key).toBe('grafana.kubebuilder.io/v1-alpha');
    expect(builtinSteps(resolveChain('grafana/v1-alpha', 'init'))).toEqual([spec]);
    expect(builtinSteps(resolveChain('grafana.kubebuilder.io/v1-alpha', 'edit'))).toEqual([spec]);
    expect(() => builtinSteps(resolveChain('grafana', 'create api'))).toThrow(/does not implement `create api`/);
    expect(spec!.replay({})).toEqual([{ command: 'edit', flags: {} }]);
    expect(replayCommandLine(spec!, { command: 'edit', flags: {} })).toEqual(['edit', '--plugins=grafana/v1-alpha']);
    expect((await spec!.load()).edit).toBeTypeOf('function');
  });
});
