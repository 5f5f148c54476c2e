import { yamlLines } from './emit.js';
import type { ManagerValues } from './manager.js';

/** What the installer holds, deciding which sections values.yaml has and what they default to. */
export interface ChartFeatures {
  crds: boolean;
  metrics: boolean;
  webhooks: boolean;
  certManager: boolean;
  networkPolicy: boolean;
  metricsPort: number;
  webhookPort: number;
}

/** `field:` with `value` indented below it, or the commented example when the installer does not set it. */
function section(title: string, field: string, value: unknown, example: string[]): string[] {
  const lines = [`  ## ${title}`, '  ##'];
  const isSet = value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0);
  if (isSet) lines.push(`  ${field}:`, ...yamlLines(value).map((l) => `    ${l}`));
  else lines.push(...example.map((l) => `  ${l}`));
  return [...lines, ''];
}

/** values.yaml: the chart's parameters, with the installer's settings as defaults (kubebuilder's layout and comments). */
export function valuesYaml(m: ManagerValues, f: ChartFeatures): string {
  const out: string[] = [
    '## String to partially override chart.fullname template (will maintain the release name)',
    '##',
    '# nameOverride: ""',
    '',
    '## String to fully override chart.fullname template',
    '##',
    '# fullnameOverride: ""',
    '',
    '## Configure the controller manager deployment',
    '##',
    'manager:',
    '  ## Set to false to skip manager installation',
    '  ##',
    '  enabled: true',
    '',
    `  replicas: ${m.replicas}`,
    '',
    '  image:',
    `    repository: ${m.image.repository}`,
    '    ## Image tag (defaults to Chart.appVersion if not set)',
    '    ##',
    m.image.tag === undefined ? '    # tag: ""' : `    tag: ${JSON.stringify(m.image.tag)}`,
    `    pullPolicy: ${m.image.pullPolicy}`,
    '',
  ];
  if (m.args.length > 0) out.push('  ## Arguments', '  ##', '  args:', ...yamlLines(m.args).map((l) => `    ${l}`), '');
  out.push(
    '  ## Health probes.',
    '  ## The manager serves the liveness (/healthz) and readiness (/readyz) endpoints on this port.',
    '  ##',
    '  healthProbe:',
    '    # Health probe server port',
    `    port: ${m.healthProbePort}`,
    '',
  );
  if (m.env && m.env.length > 0) {
    out.push('  ## Environment variables', '  ##', '  env:', ...yamlLines(m.env).map((l) => `    ${l}`), '');
    out.push(
      '  ## Env overrides (--set manager.envOverrides.VAR=value)',
      '  ## Same name in env above: this value takes precedence.',
      '  ##',
      '  envOverrides: {}',
      '',
    );
  }
  out.push(
    ...section('Image pull secrets', 'imagePullSecrets', m.imagePullSecrets, [
      '# imagePullSecrets:',
      '#   - name: myregistrykey',
    ]),
  );
  out.push(
    ...section('Pod-level security settings', 'podSecurityContext', m.podSecurityContext, [
      '# podSecurityContext:',
      '#   runAsNonRoot: true',
      '#   seccompProfile:',
      '#     type: RuntimeDefault',
    ]),
  );
  out.push(
    ...section('Container-level security settings', 'securityContext', m.securityContext, [
      '# securityContext:',
      '#   allowPrivilegeEscalation: false',
      '#   capabilities:',
      '#     drop:',
      '#     - ALL',
    ]),
  );
  out.push(
    ...section('Resource limits and requests', 'resources', m.resources, [
      '# resources:',
      '#   limits:',
      '#     cpu: 500m',
      '#     memory: 192Mi',
      '#   requests:',
      '#     cpu: 10m',
      '#     memory: 96Mi',
    ]),
  );
  out.push(...section("Manager pod's affinity", 'affinity', m.affinity, ['affinity: {}']));
  out.push(...section("Manager pod's node selector", 'nodeSelector', m.nodeSelector, ['nodeSelector: {}']));
  out.push(...section("Manager pod's tolerations", 'tolerations', m.tolerations, ['tolerations: []']));
  out.push(
    ...section('Deployment strategy', 'strategy', m.strategy, [
      '# strategy:',
      '#   type: RollingUpdate',
      '#   rollingUpdate:',
      '#     maxSurge: 25%',
      '#     maxUnavailable: 25%',
    ]),
  );
  out.push(
    '  ## Priority class name',
    '  ##',
    m.priorityClassName ? `  priorityClassName: ${JSON.stringify(m.priorityClassName)}` : '  # priorityClassName: ""',
    '',
  );
  out.push(
    ...section('Topology spread constraints', 'topologySpreadConstraints', m.topologySpreadConstraints, [
      '# topologySpreadConstraints: []',
    ]),
  );
  out.push(
    '  ## Termination grace period seconds',
    '  ##',
    m.terminationGracePeriodSeconds === undefined
      ? '  # terminationGracePeriodSeconds: 10'
      : `  terminationGracePeriodSeconds: ${m.terminationGracePeriodSeconds}`,
    '',
  );
  out.push(
    '  ## Custom Deployment labels',
    '  ##',
    '  # labels: {}',
    '',
    '  ## Custom Deployment annotations',
    '  ##',
    '  # annotations: {}',
    '',
    '  ## Custom Pod labels and annotations',
    '  ##',
    '  # pod:',
    '  #   labels: {}',
    '  #   annotations: {}',
    '',
  );
  out.push(
    '## RBAC configuration',
    '##',
    'rbac:',
    '  ## RBAC resource scope',
    '  ## - false (default): ClusterRole/ClusterRoleBinding (all namespaces)',
    '  ## - true: Role/RoleBinding (release namespace only)',
    '  ##',
    '  namespaced: false',
    '',
    '  ## Helper roles for CRD management (admin/editor/viewer)',
    '  ##',
    '  helpers:',
    '    ## Install convenience admin/editor/viewer roles for CRDs',
    '    ##',
    '    enabled: false',
    '',
    '## ServiceAccount configuration',
    '##',
    'serviceAccount:',
    '  # Install default ServiceAccount provided',
    '  enabled: true',
    '',
    '  ## Existing ServiceAccount name (only when enabled=false)',
    '  ## Note: When enabled=true, respects nameOverride/fullnameOverride',
    '  ##',
    '  # name: ""',
    '',
    '  ## Custom ServiceAccount annotations',
    '  ##',
    '  # annotations: {}',
    '',
    '  ## Custom ServiceAccount labels',
    '  ##',
    '  # labels: {}',
    '',
  );
  if (f.crds)
    out.push(
      '## Custom Resource Definitions',
      '##',
      'crd:',
      '  # Install CRDs with the chart',
      '  enabled: true',
      '  # Keep CRDs when uninstalling',
      '  keep: true',
      '',
    );
  out.push(
    '## Controller metrics endpoint.',
    '## Enable to expose /metrics endpoint',
    '##',
    'metrics:',
    `  enabled: ${f.metrics}`,
    '  # Metrics server port',
    `  port: ${f.metricsPort}`,
    '  # Enable secure metrics: HTTPS with certs/auth (true) or HTTP (false).',
    '  # Note: Metrics authn/authz needs ClusterRole access.',
    '  secure: true',
    '',
    '## Cert-manager integration for TLS certificates.',
    '## Required for webhook certificates and metrics endpoint certificates.',
    '##',
    'certManager:',
    `  enabled: ${f.webhooks || f.certManager}`,
    '',
  );
  if (f.webhooks)
    out.push(
      '## Webhook server configuration',
      '##',
      'webhook:',
      '  enabled: true',
      '  # Webhook server port',
      `  port: ${f.webhookPort}`,
      '',
    );
  out.push(
    '## Prometheus ServiceMonitor for metrics scraping.',
    '## Requires prometheus-operator to be installed in the cluster.',
    '##',
    'prometheus:',
    '  enabled: false',
    '',
    '## Network policies for controlling traffic flow.',
    '## Enable to restrict ingress to the controller manager.',
    '##',
    'networkPolicy:',
    `  enabled: ${f.networkPolicy}`,
    '',
  );
  return `${out.join('\n')}\n`;
}

/**
 * A kept values.yaml with the top-level sections it lacks appended from a fresh one (`fresh`), each with its comment:
 * the templates read those sections (a project that gained webhooks reads `.Values.webhook`), and without them
 * `helm lint` fails on a nil value. What the user wrote stays as it is.
 */
export function withMissingSections(kept: string, fresh: string, keys: readonly string[]): string {
  const blocks = topLevelBlocks(fresh);
  const added = keys.map((key) => blocks.get(key)).filter((block): block is string => block !== undefined);
  if (added.length === 0) return kept;
  return `${kept.replace(/\n*$/, '\n')}\n${added.join('\n')}`;
}

/** Each top-level key of a values.yaml → its block: the `##` comment lines right above it, the key, its indented body. */
function topLevelBlocks(text: string): Map<string, string> {
  const lines = text.split('\n');
  const blocks = new Map<string, string>();
  lines.forEach((line, i) => {
    const key = /^([A-Za-z][\w-]*):/.exec(line)?.[1];
    if (key === undefined) return;
    let start = i;
    while (start > 0 && lines[start - 1]!.startsWith('##')) start--;
    let end = i + 1;
    while (end < lines.length && (lines[end] === '' || /^\s/.test(lines[end]!))) end++;
    while (end > i + 1 && lines[end - 1] === '') end--;
    blocks.set(key, `${lines.slice(start, end).join('\n')}\n`);
  });
  return blocks;
}
