import { Counter, Gauge, Histogram } from '../metrics/prom.js';
import { registry } from '../metrics/registry.js';

// Names and labels are controller-runtime's (pkg/webhook/internal/metrics, admission and conversion), so dashboards carry over.

export const webhookRequestLatency = new Histogram({
  name: 'controller_runtime_webhook_latency_seconds',
  help: 'Histogram of the latency of processing admission requests',
  labelNames: ['webhook'] as const,
  registers: [registry],
});

export const webhookRequestTotal = new Counter({
  name: 'controller_runtime_webhook_requests_total',
  help: 'Total number of admission requests by HTTP status code.',
  labelNames: ['webhook', 'code'] as const,
  registers: [registry],
});

export const webhookRequestInFlight = new Gauge({
  name: 'controller_runtime_webhook_requests_in_flight',
  help: 'Current number of admission requests being served.',
  labelNames: ['webhook'] as const,
  registers: [registry],
});

export const webhookPanics = new Counter({
  name: 'controller_runtime_webhook_panics_total',
  help: 'Total number of webhook panics',
  registers: [registry],
});

export const conversionWebhookPanics = new Counter({
  name: 'controller_runtime_conversion_webhook_panics_total',
  help: 'Total number of conversion webhook panics',
  registers: [registry],
});
