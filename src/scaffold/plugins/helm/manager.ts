import { splitImage as splitImageReference } from '../../../kustomize/transform/images.js';
import { HelmTemplate, yamlLines } from './emit.js';
import type { K8sObject } from './manifests.js';
import {
  customMap,
  templatedLabels,
  templatedMetadata,
  templatedReferences,
  templatedSelector,
  type ChartContext,
} from './templater.js';

type Container = Record<string, unknown> & {
  name?: string;
  args?: string[];
  image?: string;
  ports?: Array<Record<string, unknown>>;
  volumeMounts?: Array<Record<string, unknown>>;
};
type PodSpec = Record<string, unknown> & { containers?: Container[]; volumes?: Array<Record<string, unknown>> };

/** What values.yaml parameterizes of the manager, read from the installer's Deployment. */
export interface ManagerValues {
  replicas: number;
  image: { repository: string; tag?: string; pullPolicy: string };
  /** The manager's own flags (not the metrics, health probe and certificate flags the chart sets). */
  args: string[];
  env?: unknown[];
  imagePullSecrets?: unknown[];
  podSecurityContext?: unknown;
  securityContext?: unknown;
  resources?: unknown;
  affinity?: unknown;
  nodeSelector?: unknown;
  tolerations?: unknown[];
  strategy?: unknown;
  priorityClassName?: string;
  topologySpreadConstraints?: unknown[];
  terminationGracePeriodSeconds?: number;
  metricsPort?: number;
  webhookPort?: number;
  /** The health probe server's port, from --health-probe-bind-address (kubebuilder v4.16's manager.healthProbe.port). */
  healthProbePort: number;
}

/**
 * The health probe port, manager.healthProbe.port (kubebuilder v4.16's value); `dig` falls back to the installer's
 * port when a values.yaml kept from an older chart has no healthProbe section, where kubebuilder's plain lookup fails.
 */
const healthPort = (port: number): string => `{{ dig "healthProbe" "port" ${port} .Values.manager }}`;

/** The port of a `--flag=[host]:port` argument, or NaN. */
function argPort(arg: string | undefined): number {
  return Number(/:(\d+)$/.exec(arg ?? '')?.[1] ?? NaN);
}

/** The flags whose value follows values.yaml (metrics, webhook certificates) instead of manager.args. */
function isChartFlag(arg: string): boolean {
  return /^--(metrics-bind-address|webhook-cert-path|metrics-cert-path|health-probe-bind-address)(=|$)/.test(arg);
}

function podSpec(d: K8sObject): PodSpec {
  return (d.spec as { template?: { spec?: PodSpec } } | undefined)?.template?.spec ?? {};
}

/** The manager container: the default-container annotation's, else the one named manager, else the first. */
function managerContainer(d: K8sObject): Container | undefined {
  const template = (d.spec as { template?: { metadata?: { annotations?: Record<string, string> } } } | undefined)
    ?.template;
  const wanted = template?.metadata?.annotations?.['kubectl.kubernetes.io/default-container'] ?? 'manager';
  const containers = podSpec(d).containers ?? [];
  return containers.find((c) => c.name === wanted) ?? containers[0];
}

/** An image reference as the chart's image line takes it: repository and tag (a digest stays in the repository). */
function splitImage(image: string): { repository: string; tag?: string } {
  const { name, tag, digest } = splitImageReference(image);
  if (digest !== '') return { repository: image };
  return tag === '' ? { repository: name } : { repository: name, tag };
}

export function managerValues(d: K8sObject | undefined): ManagerValues {
  const spec = (d?.spec ?? {}) as Record<string, unknown>;
  const pod = d ? podSpec(d) : {};
  const container = d ? managerContainer(d) : undefined;
  const image = splitImage(container?.image ?? 'controller:latest');
  const metricsBind = container?.args?.find((a) => a.startsWith('--metrics-bind-address='));
  const metricsPort = argPort(metricsBind);
  const healthProbePort = argPort(container?.args?.find((a) => a.startsWith('--health-probe-bind-address=')));
  const webhookPort = container?.ports?.find((p) => p.name === 'webhook-server')?.containerPort;
  return {
    replicas: typeof spec.replicas === 'number' ? spec.replicas : 1,
    image: {
      repository: image.repository,
      ...(image.tag !== undefined && image.tag !== 'latest' ? { tag: image.tag } : {}),
      pullPolicy: typeof container?.imagePullPolicy === 'string' ? container.imagePullPolicy : 'IfNotPresent',
    },
    args: (container?.args ?? []).filter((a) => !isChartFlag(a)),
    env: container?.env as unknown[] | undefined,
    imagePullSecrets: pod.imagePullSecrets as unknown[] | undefined,
    podSecurityContext: pod.securityContext,
    securityContext: container?.securityContext,
    resources: container?.resources,
    affinity: pod.affinity,
    nodeSelector: pod.nodeSelector,
    tolerations: pod.tolerations as unknown[] | undefined,
    strategy: spec.strategy,
    priorityClassName: pod.priorityClassName as string | undefined,
    topologySpreadConstraints: pod.topologySpreadConstraints as unknown[] | undefined,
    terminationGracePeriodSeconds: pod.terminationGracePeriodSeconds as number | undefined,
    metricsPort: Number.isFinite(metricsPort) ? metricsPort : undefined,
    webhookPort: typeof webhookPort === 'number' ? webhookPort : undefined,
    // kubebuilder's default when the flag is absent or has no port
    healthProbePort: Number.isFinite(healthProbePort) && healthProbePort > 0 ? healthProbePort : 8081,
  };
}

/** A pod field taken from values.yaml when set there (`with`), in place of the Deployment's own. */
function withValue(t: HelmTemplate, field: string, key: string): string {
  return t.block((indent) => [
    `{{- with .Values.manager.${field} }}`,
    `${key}: {{ toYaml . | nindent ${indent + 4} }}`,
    '{{- end }}',
  ]);
}

/** `key:` holding values.yaml's manager.<field>, or `{}`. */
function fromValues(t: HelmTemplate, field: string, key: string): string {
  return t.block((indent) => [
    `${key}:`,
    `  {{- if .Values.manager.${field} }}`,
    `  {{- toYaml .Values.manager.${field} | nindent ${indent + 2} }}`,
    '  {{- else }}',
    '  {}',
    '  {{- end }}',
  ]);
}

/** The condition a volume (or its mount) is installed under: certificates exist only with cert-manager. */
function volumeCondition(volume: Record<string, unknown> | undefined): string | undefined {
  const secret = (volume?.secret as { secretName?: string } | undefined)?.secretName;
  if (secret === 'webhook-server-cert') return '.Values.certManager.enabled';
  if (secret === 'metrics-server-cert')
    return 'and .Values.certManager.enabled .Values.metrics.enabled .Values.metrics.secure';
  return undefined;
}

/**
 * `key:` with values.yaml's manager.<extra> items first, then the Deployment's own (a certificate's only with
 * cert-manager). An empty list stays an empty list unless extras are given.
 */
function withExtras(
  t: HelmTemplate,
  key: string,
  extra: string,
  items: Array<Record<string, unknown>>,
  condition: (item: Record<string, unknown>) => string | undefined = volumeCondition,
): Record<string, unknown> {
  if (items.length === 0) {
    return {
      [t.block((indent) => [
        `{{- if .Values.manager.${extra} }}`,
        `${key}:`,
        `  {{- toYaml .Values.manager.${extra} | nindent ${indent + 2} }}`,
        '{{- else }}',
        `${key}: []`,
        '{{- end }}',
      ])]: null,
    };
  }
  return {
    [key]: [
      t.block((indent) => [
        `{{- if .Values.manager.${extra} }}`,
        `{{- toYaml .Values.manager.${extra} | nindent ${indent} }}`,
        '{{- end }}',
      ]),
      ...items.map((item) => conditionalItem(t, item, condition(item))),
    ],
  };
}

function conditionalItem(t: HelmTemplate, item: Record<string, unknown>, condition: string | undefined): unknown {
  if (condition === undefined) return item;
  return t.block(() => [`{{- if ${condition} }}`, ...yamlLines([item]), '{{- end }}']);
}

/** The manager Deployment's template: its settings come from values.yaml, its flags follow the chart's toggles. */
export function managerTemplate(d: K8sObject, c: ChartContext): string {
  const t = new HelmTemplate();
  const original = managerContainer(d);
  const pod = podSpec(d);
  const spec = (d.spec ?? {}) as Record<string, unknown> & {
    selector?: { matchLabels?: Record<string, string> };
    template?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> } };
  };
  const volumesByName = new Map((pod.volumes ?? []).map((v) => [v.name, v]));

  const metadata = templatedMetadata(d, t, c);
  const labels = metadata.labels as Record<string, unknown> | undefined;
  const ownLabels = Object.keys(labels ?? {});
  metadata.labels = { ...labels, [t.block((indent) => customMap('.Values.manager.labels', ownLabels, indent))]: null };
  metadata[
    t.block((indent) => [
      '{{- if .Values.manager.annotations }}',
      'annotations:',
      `  {{- toYaml .Values.manager.annotations | nindent ${indent + 2} }}`,
      '{{- end }}',
    ])
  ] = null;

  const podMeta = spec.template?.metadata ?? {};
  const podAnnotations = podMeta.annotations ?? {};
  const podLabels = templatedLabels(podMeta.labels ?? {}, t, c) ?? {};
  const templateMetadata = {
    annotations: {
      ...podAnnotations,
      [t.block((indent) => [
        '{{- with .Values.manager.pod }}',
        ...customMap('.annotations', Object.keys(podAnnotations), indent),
        '{{- end }}',
      ])]: null,
    },
    labels: {
      ...podLabels,
      [t.block((indent) => [
        '{{- with .Values.manager.pod }}',
        ...customMap('.labels', Object.keys(podLabels), indent),
        '{{- end }}',
      ])]: null,
    },
  };

  const containers = (pod.containers ?? []).map((container) =>
    container === original ? managerContainerTemplate(t, container, volumesByName, c) : container,
  );

  const podSpecOut: Record<string, unknown> = {
    [withValue(t, 'topologySpreadConstraints', 'topologySpreadConstraints')]: null,
    [t.block(() => [
      '{{- with .Values.manager.priorityClassName }}',
      'priorityClassName: {{ . | quote }}',
      '{{- end }}',
    ])]: null,
    [withValue(t, 'tolerations', 'tolerations')]: null,
    [withValue(t, 'affinity', 'affinity')]: null,
    [withValue(t, 'nodeSelector', 'nodeSelector')]: null,
    [t.block((indent) => [
      '{{- with .Values.manager.imagePullSecrets }}',
      'imagePullSecrets:',
      `  {{- toYaml . | nindent ${indent + 2} }}`,
      '{{- end }}',
    ])]: null,
  };
  const moved = new Set([
    'topologySpreadConstraints',
    'priorityClassName',
    'tolerations',
    'affinity',
    'nodeSelector',
    'imagePullSecrets',
    'securityContext',
    'serviceAccountName',
    'terminationGracePeriodSeconds',
    'volumes',
    'containers',
  ]);
  for (const [key, value] of Object.entries(pod)) {
    if (!moved.has(key)) podSpecOut[key] = value;
  }
  podSpecOut.containers = containers;
  podSpecOut[fromValues(t, 'podSecurityContext', 'securityContext')] = null;
  podSpecOut.serviceAccountName = t.inline(`{{ include "${c.helpers}.serviceAccountName" . }}`);
  podSpecOut[
    t.block(() => [
      '{{- if and (hasKey .Values.manager "terminationGracePeriodSeconds") (ne .Values.manager.terminationGracePeriodSeconds nil) }}',
      'terminationGracePeriodSeconds: {{ .Values.manager.terminationGracePeriodSeconds }}',
      '{{- end }}',
    ])
  ] = null;
  if (pod.volumes !== undefined) Object.assign(podSpecOut, withExtras(t, 'volumes', 'extraVolumes', pod.volumes));

  const specOut: Record<string, unknown> = {
    [t.block((indent) => [
      '{{- with .Values.manager.strategy }}',
      `strategy: {{ toYaml . | nindent ${indent + 2} }}`,
      '{{- end }}',
    ])]: null,
  };
  for (const [key, value] of Object.entries(spec)) {
    if (key === 'strategy') continue;
    if (key === 'replicas') specOut.replicas = t.inline('{{ .Values.manager.replicas }}');
    else if (key === 'selector')
      specOut.selector = { ...spec.selector, matchLabels: templatedSelector(spec.selector?.matchLabels ?? {}, t, c) };
    else if (key === 'template') specOut.template = { ...spec.template, metadata: templateMetadata, spec: podSpecOut };
    else specOut[key] = value;
  }
  if (!('replicas' in specOut)) specOut.replicas = t.inline('{{ .Values.manager.replicas }}');

  const object = templatedReferences({ ...d, metadata, spec: specOut }, t, c);
  return t.write(object, 'or (not (hasKey .Values.manager "enabled")) (.Values.manager.enabled)');
}

function managerContainerTemplate(
  t: HelmTemplate,
  container: Container,
  volumes: Map<unknown, Record<string, unknown>>,
  c: ChartContext,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(container)) {
    switch (key) {
      case 'args':
        out.args = managerArgs(t, container.args ?? [], c.webhookPort);
        break;
      case 'env':
        out[
          t.block((indent) => [
            'env:',
            '{{- if or .Values.manager.env (and (kindIs "map" .Values.manager.envOverrides) (not (empty .Values.manager.envOverrides))) }}',
            '  {{- if .Values.manager.env }}',
            `  {{- toYaml .Values.manager.env | nindent ${indent + 2} }}`,
            '  {{- end }}',
            '  {{- if kindIs "map" .Values.manager.envOverrides }}',
            '  {{- range $k, $v := .Values.manager.envOverrides }}',
            '  - name: {{ $k }}',
            '    value: {{ $v | quote }}',
            '  {{ end }}',
            '  {{- end }}',
            '{{- else }}',
            '  []',
            '{{- end }}',
          ])
        ] = null;
        break;
      case 'image':
        out[
          t.block(() => [
            'image: "{{ .Values.manager.image.repository }}{{- if not (contains "@" .Values.manager.image.repository) }}:{{ .Values.manager.image.tag | default .Chart.AppVersion }}{{- end }}"',
            '{{- with .Values.manager.image.pullPolicy }}',
            'imagePullPolicy: {{ . }}',
            '{{- end }}',
          ])
        ] = null;
        break;
      case 'imagePullPolicy':
        break; // with the image, from values.yaml
      case 'ports':
        out.ports = (container.ports ?? []).map((p) =>
          p.name === 'webhook-server' && c.webhookPort !== undefined && p.containerPort === c.webhookPort
            ? { ...p, containerPort: t.inline('{{ .Values.webhook.port }}') }
            : p.name === 'health' && typeof p.containerPort === 'number'
              ? { ...p, containerPort: t.inline(healthPort(p.containerPort)) }
              : p,
        );
        break;
      case 'livenessProbe':
      case 'readinessProbe':
        out[key] = probeOnHealthPort(t, value);
        break;
      case 'resources':
        out[fromValues(t, 'resources', 'resources')] = null;
        break;
      case 'securityContext':
        out[fromValues(t, 'securityContext', 'securityContext')] = null;
        break;
      case 'volumeMounts':
        Object.assign(
          out,
          withExtras(t, 'volumeMounts', 'extraVolumeMounts', container.volumeMounts ?? [], (m) =>
            volumeCondition(volumes.get(m.name)),
          ),
        );
        break;
      default:
        out[key] = value;
    }
  }
  if (!('resources' in container)) out[fromValues(t, 'resources', 'resources')] = null;
  if (!('securityContext' in container)) out[fromValues(t, 'securityContext', 'securityContext')] = null;
  return out;
}

/** A liveness or readiness probe whose httpGet on /healthz or /readyz follows manager.healthProbe.port, as kubebuilder's. */
function probeOnHealthPort(t: HelmTemplate, probe: unknown): unknown {
  const httpGet = (probe as { httpGet?: { path?: string; port?: unknown } } | undefined)?.httpGet;
  if (!httpGet || !/^\/(healthz|readyz)$/.test(httpGet.path ?? '') || typeof httpGet.port !== 'number') return probe;
  return { ...(probe as object), httpGet: { ...httpGet, port: t.inline(healthPort(httpGet.port)) } };
}

/**
 * The manager's flags in their order: the metrics flags follow metrics.*, the certificate paths cert-manager, the
 * manager's own flags come from manager.args (placed where the first of them stood), --webhook-port follows webhook.port.
 */
function managerArgs(t: HelmTemplate, args: string[], webhookPort: number | undefined): unknown[] {
  const out: unknown[] = [];
  let ownPlaced = false;
  const placeOwn = (): void => {
    if (ownPlaced) return;
    ownPlaced = true;
    out.push(t.block(() => ['{{- range .Values.manager.args }}', '- {{ . }}', '{{- end }}']));
  };
  for (const arg of args) {
    if (arg.startsWith('--metrics-bind-address=')) {
      out.push(
        t.block(() => [
          '{{- if .Values.metrics.enabled }}',
          '- --metrics-bind-address=:{{ .Values.metrics.port }}',
          '{{- if not .Values.metrics.secure }}',
          '- --no-metrics-secure',
          '{{- end }}',
          '{{- else }}',
          '# Bind to 0 to disable the metrics server',
          '- --metrics-bind-address=0',
          '{{- end }}',
        ]),
      );
    } else if (arg.startsWith('--webhook-cert-path')) {
      out.push(t.block(() => ['{{- if .Values.certManager.enabled }}', `- ${arg}`, '{{- end }}']));
    } else if (arg.startsWith('--metrics-cert-path')) {
      out.push(
        t.block(() => [
          '{{- if and .Values.certManager.enabled .Values.metrics.enabled .Values.metrics.secure }}',
          `- ${arg}`,
          '{{- end }}',
        ]),
      );
    } else if (arg.startsWith('--health-probe-bind-address=')) {
      // the host part (empty, an address, [::1]) stays; the port follows manager.healthProbe.port
      const templated = arg.replace(/:\d+$/, `:${healthPort(argPort(arg))}`);
      out.push(templated === arg ? arg : t.block(() => [`- ${templated}`]));
    } else if (isChartFlag(arg)) {
      out.push(arg);
    } else {
      placeOwn();
    }
  }
  placeOwn();
  // The manager listens where the installer says; another webhook.port needs the flag (the Service follows the value).
  if (webhookPort !== undefined) {
    out.push(
      t.block(() => [
        `{{- if ne (int .Values.webhook.port) ${webhookPort} }}`,
        '- --webhook-port={{ .Values.webhook.port }}',
        '{{- end }}',
      ]),
    );
  }
  return out;
}
