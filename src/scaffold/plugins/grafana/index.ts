import { readFileSync } from 'node:fs';
import { loadProject } from '../../../project/load.js';
import { Plan } from '../../plan.js';
import { render, templatesRoot } from '../../render.js';
import { stringifyProject, withPluginConfig } from '../../../project/project.js';
import type { PluginModule, PluginResult } from '../plugin.js';
import { parseCustomMetrics, type CustomMetric } from './custom-metrics.js';
import { GRAFANA_PLUGIN_KEY } from './spec.js';
import { ScaffoldError } from '../../../errors.js';

/** Where the user lists custom metrics; a later `edit` draws a dashboard from it. */
export const CUSTOM_METRICS_CONFIG = 'grafana/custom-metrics/config.yaml';
const CUSTOM_METRICS_DASHBOARD = 'grafana/custom-metrics/custom-metrics-dashboard.json';

/** A dashboard file kept as data: Grafana's own {{label}} syntax is not a template of ours. */
function dashboard(name: string): string {
  return readFileSync(new URL(`plugins/grafana/${name}`, templatesRoot), 'utf8');
}

/**
 * `edit --plugins=grafana/v1-alpha`: writes the controller-runtime and resources dashboards (always regenerated),
 * the custom-metrics config (kept once it exists), and, when that config lists metrics, their dashboard.
 */
export function editGrafana(root: string): PluginResult {
  const config = loadProject(root);
  const plan = new Plan(root);
  const notes: string[] = [];
  plan.template('grafana/controller-runtime-metrics.json', dashboard('controller-runtime-metrics.json'), 'overwrite');
  plan.template(
    'grafana/controller-resources-metrics.json',
    dashboard('controller-resources-metrics.json'),
    'overwrite',
  );
  const existing = plan.current(CUSTOM_METRICS_CONFIG);
  plan.template(CUSTOM_METRICS_CONFIG, dashboard('custom-metrics-config.yaml'), 'skip');
  if (existing !== undefined) {
    const { metrics, skipped } = parseCustomMetrics(existing, CUSTOM_METRICS_CONFIG);
    for (const reason of skipped) notes.push(`${CUSTOM_METRICS_CONFIG}: skipped ${reason}`);
    if (metrics.length > 0) plan.template(CUSTOM_METRICS_DASHBOARD, customMetricsDashboard(metrics), 'overwrite');
  }
  const project = stringifyProject(withPluginConfig(config, GRAFANA_PLUGIN_KEY, {}));
  if (project !== plan.current('PROJECT')) plan.template('PROJECT', project, 'overwrite');
  const written = plan.commit();
  notes.push(
    `Import the dashboards in grafana/ into Grafana (Dashboards > New > Import); list your own metrics in ${CUSTOM_METRICS_CONFIG} and run \`scaffold edit --plugins=grafana/v1-alpha\` again to get a dashboard for them.`,
  );
  return { written, notes };
}

/**
 * The custom-metrics dashboard. Exprs and units go into its JSON as written, as kubebuilder puts them, so one with a
 * bare double quote would make a file Grafana cannot import: that is refused, naming the entry.
 */
function customMetricsDashboard(metrics: CustomMetric[]): string {
  for (const m of metrics) {
    for (const name of ['metric', 'type', 'expr', 'unit'] as const) {
      try {
        JSON.parse(`"${m[name]}"`);
      } catch {
        throw new ScaffoldError(
          `${CUSTOM_METRICS_CONFIG}: customMetrics[${m.entry}].${name} goes into the dashboard's JSON as it is, so it must be valid inside a JSON string: write its double quotes as \\" (as in the example, job=\\"$job\\"), and no line breaks`,
        );
      }
    }
  }
  return render('plugins/grafana/custom-metrics-dashboard.json', { items: metrics });
}

const plugin: PluginModule = { edit: (root) => editGrafana(root) };
export default plugin;
