/**
 * The grafana plugin's dashboards query metrics by name and label: each must be one our manager's /metrics serves, or
 * the panel stays empty. A Manager runs one controller with leader election against envtest; after it has won the
 * lease and reconciled (once failing, so that the error and retry series exist too) its /metrics is scraped, and every metric
 * of every dashboard query, with every label the query selects, groups by or names in its legend, must be there.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../src/envtest/index.js';
import { Manager, newClient, newControllerManagedBy } from '../../src/runtime/index.js';
import { ConfigMaps, Namespaces } from '../../src/runtime/rest/index.js';
import { editGrafana } from '../../src/scaffold/plugins/grafana/index.js';
import { initProject, tempProjectDir } from './helpers.js';
import { eventually } from '../support/eventually.js';
import { captureLog } from '../support/logs.js';

/**
 * Labels Prometheus adds to every series it scrapes from a pod (the target's, not the manager's own); prometheus-operator's
 * ServiceMonitor, which config/prometheus sets up, adds the container's name too.
 */
const TARGET_LABELS = new Set(['job', 'namespace', 'pod', 'instance', 'container']);

/**
 * A custom-metrics config naming some of the runtime's metrics, so its dashboard's queries are checked too. kubebuilder's
 * histogram query reads the metric as named, so a histogram must be listed by its _bucket series.
 */
const customConfig = `customMetrics:
  - metric: controller_runtime_reconcile_total
    type: counter
  - metric: controller_runtime_reconcile_time_seconds_bucket
    type: histogram
  - metric: controller_runtime_max_concurrent_reconciles
    type: gauge
`;

/** Each sample name's label names, as served (a histogram's _bucket samples carry `le`). */
function servedLabels(text: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? \S+/.exec(line);
    if (!m) continue;
    const labels = out.get(m[1]!) ?? new Set<string>();
    for (const pair of m[2]?.match(/(\w+)="(?:[^"\\]|\\.)*"/g) ?? []) labels.add(pair.slice(0, pair.indexOf('=')));
    out.set(m[1]!, labels);
  }
  return out;
}

interface Use {
  dashboard: string;
  query: string;
  metric: string;
  labels: string[];
}

/** The metrics a PromQL query (or a label_values() variable query) reads, each with the labels it uses. */
function uses(dashboard: string, query: string, legend = ''): Use[] {
  const legendLabels = [...legend.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]!);
  const grouped = [...query.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g)].flatMap((m) =>
    m[1]!
      .split(',')
      .map((l) => l.trim())
      .filter(Boolean),
  );
  const found: Use[] = [];
  const variable = /^label_values\(([a-zA-Z_:][\w:]*)(?:\{([^}]*)\})?,\s*(\w+)\)$/.exec(query);
  if (variable) {
    const selected = [...(variable[2] ?? '').matchAll(/(\w+)\s*=~?/g)].map((m) => m[1]!);
    return [{ dashboard, query, metric: variable[1]!, labels: [...selected, variable[3]!] }];
  }
  for (const m of query.matchAll(/([a-zA-Z_:][\w:]*)\{([^}]*)\}/g)) {
    const selected = [...m[2]!.matchAll(/(\w+)\s*[!=]~?/g)].map((s) => s[1]!);
    found.push({ dashboard, query, metric: m[1]!, labels: [...selected, ...grouped, ...legendLabels] });
  }
  if (found.length === 0 && /^[a-zA-Z_:][\w:]*$/.test(query))
    found.push({ dashboard, query, metric: query, labels: legendLabels });
  return found;
}

/** Every query of a dashboard: panel targets (with their legends) and templating variables. */
function dashboardUses(name: string, json: string): Use[] {
  const out: Use[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (node === null || typeof node !== 'object') return;
    const o = node as Record<string, unknown>;
    if (typeof o.expr === 'string')
      out.push(...uses(name, o.expr, typeof o.legendFormat === 'string' ? o.legendFormat : ''));
    if (typeof o.definition === 'string') out.push(...uses(name, o.definition));
    Object.values(o).forEach(walk);
  };
  walk(JSON.parse(json));
  return out;
}

describe("the grafana dashboards' queries against our manager's /metrics", () => {
  let env: TestEnvironment;
  let project: { root: string; cleanup: () => void };
  let served: Map<string, Set<string>>;
  let queries: Use[];

  beforeAll(async () => {
    project = tempProjectDir('project');
    initProject(project.root);
    editGrafana(project.root);
    writeFileSync(join(project.root, 'grafana/custom-metrics/config.yaml'), customConfig);
    editGrafana(project.root);
    queries = [
      'controller-runtime-metrics.json',
      'controller-resources-metrics.json',
      'custom-metrics/custom-metrics-dashboard.json',
    ].flatMap((file) => dashboardUses(file, readFileSync(join(project.root, 'grafana', file), 'utf8')));

    env = await TestEnvironment.start();
    const client = newClient(env.kubeConfig);
    await client.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dash' } });
    await client.create(ConfigMaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'one', namespace: 'dash' },
      data: { a: 'b' },
    });
    client.close();

    const logs = captureLog('manager');
    const mgr = new Manager({
      kubeConfig: env.kubeConfig,
      log: logs.log,
      cache: { defaultNamespaces: ['dash'] },
      metrics: { bindAddress: '127.0.0.1:0', secureServing: false },
      leaderElection: { enabled: true, id: 'dash', namespace: 'dash' },
    });
    let calls = 0;
    newControllerManagedBy(mgr)
      .for(ConfigMaps)
      .named('configmap')
      .complete({
        reconcile: () => {
          calls++;
          // The first reconcile fails, so that the error counter and the workqueue's retries have series too.
          if (calls === 1) throw new Error('first reconcile fails on purpose');
          return Promise.resolve({});
        },
      });
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    try {
      await eventually(() => calls >= 2 && mgr.metricsAddress() !== undefined, {
        what: 'the manager to reconcile after a retry',
        diagnose: () => logs.tail(),
      });
      served = servedLabels(await (await fetch(`http://127.0.0.1:${mgr.metricsAddress()!.port}/metrics`)).text());
    } finally {
      ac.abort();
      await done;
    }
  });

  afterAll(async () => {
    await env?.stop();
    project?.cleanup();
  });

  it('finds the queries of all three dashboards', () => {
    expect(new Set(queries.map((q) => q.dashboard)).size).toBe(3);
    expect(queries.length).toBeGreaterThan(20);
  });

  it('serves every metric a dashboard query reads', () => {
    const missing = queries
      .filter((q) => !served.has(q.metric))
      .map((q) => `${q.dashboard}: ${q.metric} in ${q.query}`);
    expect(missing).toEqual([]);
  });

  it("serves each with the labels the query uses (apart from the Prometheus target's own)", () => {
    const missing = queries.flatMap((q) =>
      q.labels
        .filter((l) => !TARGET_LABELS.has(l) && !served.get(q.metric)?.has(l))
        .map((l) => `${q.dashboard}: ${q.metric} has no label ${l} (${q.query})`),
    );
    expect(missing).toEqual([]);
  });
});
