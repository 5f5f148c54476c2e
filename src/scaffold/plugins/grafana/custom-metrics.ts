import { ScaffoldError } from '../../../errors.js';
import { readYamlDocument, YamlInputError } from '../../../yaml/read.js';

/** One panel of the custom-metrics dashboard, as grafana/custom-metrics/config.yaml lists it (kubebuilder's CustomMetricItem). */
export interface CustomMetric {
  metric: string;
  type: string;
  expr: string;
  unit: string;
  /** Its index in config.yaml's customMetrics list, for messages. */
  entry: number;
  /** An `_info` metric carries its data in labels, so kubebuilder shows it as a table of them. */
  table: boolean;
}

/** What the config listed: the panels to draw, and the entries kubebuilder's plugin drops (with why). */
export interface CustomMetricsConfig {
  metrics: CustomMetric[];
  skipped: string[];
}

const fields = ['metric', 'type', 'expr', 'unit'] as const;
const types = ['counter', 'gauge', 'histogram'];

/**
 * Reads config.yaml's `customMetrics` list as kubebuilder's grafana plugin does: an entry needs an expr, or a metric
 * with a counter/gauge/histogram type; a missing expr and unit are derived from the type and the metric's name.
 * A file that is not YAML, or a field that is not a string, is refused naming `path`.
 */
export function parseCustomMetrics(text: string, path: string): CustomMetricsConfig {
  let data: unknown;
  try {
    data = readYamlDocument(text, path)?.data ?? null;
  } catch (err) {
    if (!(err instanceof YamlInputError)) throw err;
    throw new ScaffoldError(`${err.message}; fix it, or delete it to get the commented example back`);
  }
  if (data === null || data === undefined) return { metrics: [], skipped: [] };
  if (typeof data !== 'object' || Array.isArray(data))
    throw new ScaffoldError(`${path} must be a mapping with a customMetrics list`);
  const list = (data as Record<string, unknown>).customMetrics;
  if (list === null || list === undefined) return { metrics: [], skipped: [] };
  if (!Array.isArray(list))
    throw new ScaffoldError(`${path}: customMetrics must be a list of {metric, type, expr, unit} entries`);
  const metrics: CustomMetric[] = [];
  const skipped: string[] = [];
  list.forEach((raw: unknown, index) => {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      throw new ScaffoldError(`${path}: customMetrics[${index}] must be a mapping with metric, type, expr and unit`);
    }
    const entry: Record<(typeof fields)[number], string> = { metric: '', type: '', expr: '', unit: '' };
    for (const field of fields) {
      const value = (raw as Record<string, unknown>)[field];
      if (value === undefined || value === null) continue;
      if (typeof value !== 'string')
        throw new ScaffoldError(`${path}: customMetrics[${index}].${field} must be a string`);
      entry[field] = value;
    }
    const type = entry.type.toLowerCase();
    if (entry.expr === '' && (entry.metric === '' || !types.includes(type))) {
      skipped.push(
        `customMetrics[${index}]${entry.metric ? ` (${entry.metric})` : ''}: needs an expr, or a metric with type counter, gauge or histogram`,
      );
      return;
    }
    metrics.push({
      entry: index,
      metric: entry.metric,
      type: entry.type,
      expr: entry.expr || defaultExpr(entry.metric, type),
      unit: entry.unit || defaultUnit(entry.metric),
      table: entry.metric.endsWith('_info'),
    });
  });
  return { metrics, skipped };
}

/**
 * kubebuilder's query for a metric of this type. The quotes are escaped because the query goes into the dashboard's
 * JSON as it is.
 */
function defaultExpr(metric: string, type: string): string {
  const selector = `${metric}{job=\\"$job\\", namespace=\\"$namespace\\"}`;
  if (type === 'counter') return `sum(rate(${selector}[5m])) by (instance, pod)`;
  if (type === 'histogram') return `histogram_quantile(0.90, sum by(instance, le) (rate(${selector}[5m])))`;
  return metric;
}

/** The unit kubebuilder guesses from the metric's name. */
function defaultUnit(metric: string): string {
  const name = metric.toLowerCase();
  if (name.includes('second') || name.includes('duration')) return 's';
  if (name.includes('byte')) return 'bytes';
  if (name.includes('ratio')) return 'percent';
  return 'none';
}
