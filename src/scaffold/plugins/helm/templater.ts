import { AT_MARGIN, HelmTemplate, prependKey, renameKey, yamlLines, type Block } from './emit.js';
import type { K8sObject } from './manifests.js';

/** What every object's template needs to know about the chart. */
export interface ChartContext {
  /** The prefix of the chart's helpers (<name>.fullname, ...): the project's name, as kubebuilder's. */
  helpers: string;
  /** kustomize's namePrefix, replaced by the release's full name. */
  prefix: string;
  /** The manager's namespace, replaced by the release namespace. */
  namespace: string;
  metricsPort: number;
  /** The manager's webhook port; undefined without webhooks (values.yaml has no webhook section then). */
  webhookPort: number | undefined;
  /** The names of the installer's objects: a reference to one of them follows the release's name. */
  names: ReadonlySet<string>;
}

/** {{ include "<helpers>.resourceName" ... }} for a prefixed name, else undefined. */
export function resourceName(name: string, c: ChartContext): string | undefined {
  if (!name.startsWith(`${c.prefix}-`)) return undefined;
  return `{{ include "${c.helpers}.resourceName" (dict "suffix" "${name.slice(c.prefix.length + 1)}" "context" $) }}`;
}

export const RELEASE_NAMESPACE = '{{ .Release.Namespace }}';

/** The labels Helm charts carry, in place of kustomize's managed-by and the name label. */
export function helmLabels(t: HelmTemplate, c: ChartContext): Record<string, string> {
  return {
    'app.kubernetes.io/managed-by': t.inline('{{ .Release.Service }}'),
    'app.kubernetes.io/name': t.inline(`{{ include "${c.helpers}.name" . }}`),
    'helm.sh/chart': t.inline('{{ .Chart.Name }}-{{ .Chart.Version | replace "+" "_" }}'),
    'app.kubernetes.io/instance': t.inline('{{ .Release.Name }}'),
  };
}

const HELM_LABEL_KEYS = [
  'app.kubernetes.io/managed-by',
  'app.kubernetes.io/name',
  'helm.sh/chart',
  'app.kubernetes.io/instance',
];

/** The object's labels with Helm's in place of kustomize's; none when it had none. */
export function templatedLabels(
  labels: Record<string, string> | undefined,
  t: HelmTemplate,
  c: ChartContext,
): Record<string, unknown> | undefined {
  if (labels === undefined) return undefined;
  const rest = Object.fromEntries(Object.entries(labels).filter(([k]) => !HELM_LABEL_KEYS.includes(k)));
  return { ...helmLabels(t, c), ...rest };
}

/** A selector's labels: the name label follows the chart's name. */
export function templatedSelector(
  labels: Record<string, string>,
  t: HelmTemplate,
  c: ChartContext,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(labels).map(([k, v]) => [
      k,
      k === 'app.kubernetes.io/name' ? t.inline(`{{ include "${c.helpers}.name" . }}`) : v,
    ]),
  );
}

/** metadata with Helm's labels, the release's names and namespace. */
export function templatedMetadata(o: K8sObject, t: HelmTemplate, c: ChartContext): Record<string, unknown> {
  let metadata: Record<string, unknown> = { ...o.metadata };
  const labels = templatedLabels(o.metadata.labels, t, c);
  if (labels) metadata.labels = labels;
  const annotations = o.metadata.annotations;
  const injectFrom = annotations?.['cert-manager.io/inject-ca-from'];
  if (annotations && injectFrom !== undefined) {
    // The CA comes from the serving certificate only when cert-manager is part of the release.
    const [, cert = ''] = injectFrom.split('/');
    const ref = resourceName(cert, c) ?? cert;
    const rest = Object.fromEntries(
      Object.entries(annotations).filter(([k]) => k !== 'cert-manager.io/inject-ca-from'),
    );
    metadata.annotations = prependKey(
      rest,
      t.block(() => [
        '{{- if .Values.certManager.enabled }}',
        `cert-manager.io/inject-ca-from: ${RELEASE_NAMESPACE}/${ref}`,
        '{{- end }}',
      ]),
      null,
    );
  }
  const name = o.metadata.name;
  const templatedName = name === undefined ? undefined : resourceName(name, c);
  if (templatedName) metadata = renameKey(metadata, 'name', 'name', t.inline(templatedName));
  if (o.metadata.namespace === c.namespace)
    metadata = renameKey(metadata, 'namespace', 'namespace', t.inline(RELEASE_NAMESPACE));
  return metadata;
}

/**
 * The rest of an object: a string naming another object of the installer follows the release's name, a namespace
 * field holding the manager's namespace becomes the release namespace.
 */
export function templatedReferences(value: unknown, t: HelmTemplate, c: ChartContext, key = ''): unknown {
  if (typeof value === 'string') {
    if (key === 'namespace' && value === c.namespace) return t.inline(RELEASE_NAMESPACE);
    if (c.names.has(value)) return t.inline(resourceName(value, c) ?? value);
    return value;
  }
  if (Array.isArray(value)) return value.map((v) => templatedReferences(v, t, c, key));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, k.startsWith('__HELM_') ? v : templatedReferences(v, t, c, k)]),
    );
  }
  return value;
}

const METRICS_ON = 'and .Values.metrics.enabled .Values.metrics.secure';

/** A Role/ClusterRole or binding kind that follows rbac.namespaced (ClusterRole unless namespaced). */
function namespacedKind(t: HelmTemplate, role: string, clusterRole: string): string {
  return t.block(() => [
    '{{- if .Values.rbac.namespaced }}',
    `kind: ${role}`,
    '{{- else }}',
    `kind: ${clusterRole}`,
    '{{- end }}',
  ]);
}

const namespaceIfNamespaced: Block = () => [
  `${AT_MARGIN}{{- if .Values.rbac.namespaced }}`,
  `namespace: ${RELEASE_NAMESPACE}`,
  `${AT_MARGIN}{{- end }}`,
];

/** The template of any object but the manager: its metadata templated, references followed, and its values toggle. */
export function objectTemplate(o: K8sObject, c: ChartContext): string {
  const t = new HelmTemplate();
  const name = o.metadata.name ?? '';
  const suffix = name.startsWith(`${c.prefix}-`) ? name.slice(c.prefix.length + 1) : name;
  let object: Record<string, unknown> = { ...o, metadata: templatedMetadata(o, t, c) };
  let condition: string | undefined;
  const sa = `{{ include "${c.helpers}.serviceAccountName" . }}`;
  switch (o.kind) {
    case 'CustomResourceDefinition': {
      condition = '.Values.crd.enabled';
      const metadata = object.metadata as Record<string, unknown>;
      const keep = t.block(() => ['{{- if .Values.crd.keep }}', '"helm.sh/resource-policy": keep', '{{- end }}']);
      const annotations = prependKey((metadata.annotations as Record<string, unknown> | undefined) ?? {}, keep, null);
      object.metadata =
        metadata.annotations === undefined
          ? prependKey(metadata, 'annotations', annotations)
          : { ...metadata, annotations };
      break;
    }
    case 'ServiceAccount': {
      condition = 'ne .Values.serviceAccount.enabled false';
      const metadata = object.metadata as Record<string, unknown>;
      const labels = metadata.labels as Record<string, unknown> | undefined;
      const custom = t.block((indent) => customMap('.Values.serviceAccount.labels', Object.keys(labels ?? {}), indent));
      const withAnnotations = t.block((indent) => [
        '{{- with .Values.serviceAccount.annotations }}',
        'annotations:',
        `  {{- toYaml . | nindent ${indent + 2} }}`,
        '{{- end }}',
      ]);
      const rest = Object.entries(metadata).filter(([k]) => k !== 'name' && k !== 'labels');
      object.metadata = {
        ...(labels ? { labels: { ...labels, [custom]: null } } : {}),
        ...(o.metadata.annotations === undefined ? { [withAnnotations]: null } : {}),
        name: t.inline(sa),
        ...Object.fromEntries(rest),
      };
      break;
    }
    case 'ClusterRole':
    case 'Role': {
      const helper = /-(admin|editor|viewer)-role$/.test(name);
      if (suffix === 'metrics-auth-role' || suffix === 'metrics-reader') condition = METRICS_ON;
      else if (helper) condition = '.Values.rbac.helpers.enabled';
      if (o.kind === 'ClusterRole' && (helper || suffix === 'manager-role')) {
        object = renameKey(object, 'kind', namespacedKind(t, 'Role', 'ClusterRole'), null);
        object.metadata = prependKey(object.metadata as Record<string, unknown>, t.block(namespaceIfNamespaced), null);
      }
      break;
    }
    case 'ClusterRoleBinding':
    case 'RoleBinding': {
      if (suffix === 'metrics-auth-rolebinding') condition = METRICS_ON;
      const subjects = (o.subjects as Array<Record<string, unknown>> | undefined)?.map((s) =>
        s.kind === 'ServiceAccount' && s.name === `${c.prefix}-controller-manager` ? { ...s, name: t.inline(sa) } : s,
      );
      if (subjects) object.subjects = subjects;
      if (o.kind === 'ClusterRoleBinding' && suffix === 'manager-rolebinding') {
        object = renameKey(object, 'kind', namespacedKind(t, 'RoleBinding', 'ClusterRoleBinding'), null);
        object.metadata = prependKey(object.metadata as Record<string, unknown>, t.block(namespaceIfNamespaced), null);
        const roleRef = object.roleRef as Record<string, unknown>;
        object.roleRef = renameKey(
          roleRef,
          'kind',
          t.block(() => [
            '{{- if .Values.rbac.namespaced }}',
            'kind: Role',
            '{{- else }}',
            'kind: ClusterRole',
            '{{- end }}',
          ]),
          null,
        );
      }
      break;
    }
    case 'Service': {
      const spec = o.spec as { ports?: Array<Record<string, unknown>>; selector?: Record<string, string> } | undefined;
      const metrics = name.endsWith('metrics-service');
      const webhook = name.endsWith('webhook-service');
      if (metrics) condition = '.Values.metrics.enabled';
      if (webhook) condition = '.Values.webhook.enabled';
      const ports = spec?.ports?.map((p) => {
        if (metrics && p.port === c.metricsPort) {
          const port = t.inline('{{ .Values.metrics.port }}');
          return {
            ...p,
            ...(p.name !== undefined
              ? { name: t.inline('{{ if .Values.metrics.secure }}https{{ else }}http{{ end }}') }
              : {}),
            port,
            ...(p.targetPort === c.metricsPort ? { targetPort: port } : {}),
          };
        }
        if (webhook && c.webhookPort !== undefined && p.targetPort === c.webhookPort)
          return { ...p, targetPort: t.inline('{{ .Values.webhook.port }}') };
        return p;
      });
      object.spec = {
        ...spec,
        ...(ports ? { ports } : {}),
        ...(spec?.selector ? { selector: templatedSelector(spec.selector, t, c) } : {}),
      };
      break;
    }
    case 'Certificate': {
      const spec = o.spec as { dnsNames?: string[]; secretName?: string } | undefined;
      const metricsCert = suffix === 'metrics-certs' || spec?.secretName === 'metrics-server-cert';
      condition = metricsCert
        ? `and .Values.certManager.enabled ${METRICS_ON.slice(4)}`
        : '.Values.certManager.enabled';
      const metricsService = [...c.names].find((n) => n.endsWith('metrics-service'));
      const dnsNames = spec?.dnsNames?.map((dns) => templatedDnsName(dns, t, c, metricsService));
      object.spec = { ...spec, ...(dnsNames ? { dnsNames } : {}) };
      break;
    }
    case 'Issuer':
      condition = '.Values.certManager.enabled';
      break;
    case 'ValidatingWebhookConfiguration':
    case 'MutatingWebhookConfiguration':
      condition = '.Values.webhook.enabled';
      break;
    case 'ServiceMonitor': {
      condition = '.Values.prometheus.enabled';
      const spec = o.spec as
        { endpoints?: Array<Record<string, unknown>>; selector?: { matchLabels?: Record<string, string> } } | undefined;
      object.spec = {
        ...spec,
        ...(spec?.endpoints
          ? {
              endpoints: spec.endpoints.map((e) =>
                e.port === 'https' || e.port === 'http' ? t.block(() => metricsEndpoint(e, c)) : e,
              ),
            }
          : {}),
        ...(spec?.selector?.matchLabels
          ? { selector: { ...spec.selector, matchLabels: templatedSelector(spec.selector.matchLabels, t, c) } }
          : {}),
      };
      break;
    }
    case 'NetworkPolicy': {
      // The policies of config/network-policy admit traffic to the manager's metrics or webhook port (on the pod).
      const webhook = suffix === 'allow-webhook-traffic';
      const metrics = suffix === 'allow-metrics-traffic';
      condition = webhook
        ? 'and .Values.networkPolicy.enabled .Values.webhook.enabled'
        : '.Values.networkPolicy.enabled';
      const port = webhook ? '{{ .Values.webhook.port }}' : metrics ? '{{ .Values.metrics.port }}' : undefined;
      const spec = o.spec as
        | {
            ingress?: Array<{ ports?: Array<Record<string, unknown>> }>;
            podSelector?: { matchLabels?: Record<string, string> };
          }
        | undefined;
      object.spec = {
        ...spec,
        ...(spec?.podSelector?.matchLabels
          ? { podSelector: { ...spec.podSelector, matchLabels: templatedSelector(spec.podSelector.matchLabels, t, c) } }
          : {}),
        ...(spec?.ingress && port
          ? {
              ingress: spec.ingress.map((rule) =>
                rule.ports ? { ...rule, ports: rule.ports.map((p) => ({ ...p, port: t.inline(port) })) } : rule,
              ),
            }
          : {}),
      };
      break;
    }
    case 'PodDisruptionBudget': {
      // config/sharding's budget selects the manager's pods: its selector follows the Deployment's (the chart's name).
      const spec = o.spec as { selector?: { matchLabels?: Record<string, string> } } | undefined;
      if (suffix === 'controller-manager' && spec?.selector?.matchLabels)
        object.spec = {
          ...spec,
          selector: { ...spec.selector, matchLabels: templatedSelector(spec.selector.matchLabels, t, c) },
        };
      break;
    }
    default:
      break;
  }
  return t.write(templatedReferences(object, t, c), condition);
}

/**
 * A certificate's DNS name <service>.<namespace>.svc[.cluster.local] for the release; config/default's
 * SERVICE_NAME.SERVICE_NAMESPACE placeholders (filled by replacements only when the metrics certificate is wired in)
 * name the metrics service.
 */
function templatedDnsName(dns: string, t: HelmTemplate, c: ChartContext, metricsService: string | undefined): string {
  const text = dnsNameTemplate(dns, c, metricsService);
  return text === undefined ? dns : t.inline(text);
}

/** The template text of a DNS name <service>.<namespace>[...] naming one of the installer's services, else undefined. */
function dnsNameTemplate(dns: string, c: ChartContext, metricsService: string | undefined): string | undefined {
  const [service = '', namespace = '', ...rest] = dns.split('.');
  const placeholder = service === 'SERVICE_NAME' && namespace === 'SERVICE_NAMESPACE';
  const serviceName = placeholder ? metricsService : service;
  const svc = serviceName === undefined ? undefined : resourceName(serviceName, c);
  if (svc === undefined) return undefined;
  const ns = placeholder
    ? `{{ include "${c.helpers}.namespaceName" $ }}`
    : namespace === c.namespace
      ? RELEASE_NAMESPACE
      : namespace;
  return [svc, ns, ...rest].join('.');
}

/** A ServiceMonitor's endpoint for the metrics service: HTTPS with the token and TLS settings only while metrics.secure. */
function metricsEndpoint(endpoint: Record<string, unknown>, c: ChartContext): string[] {
  const body: string[] = [];
  const scheme = '{{ if .Values.metrics.secure }}https{{ else }}http{{ end }}';
  for (const [key, value] of Object.entries(endpoint)) {
    if (key === 'tlsConfig')
      body.push(
        '{{- if .Values.metrics.secure }}',
        ...tlsConfigLines(value as Record<string, unknown>, c),
        '{{- end }}',
      );
    else if (key === 'bearerTokenFile')
      body.push('{{- if .Values.metrics.secure }}', ...yamlLines({ [key]: value }), '{{- end }}');
    else if (key === 'port' || key === 'scheme') body.push(`${key}: ${scheme}`);
    else body.push(...yamlLines({ [key]: value }));
  }
  // The first line carries the list's dash; an action there (as kubebuilder writes it) leaves the dash to the item.
  return body.map((line, i) => (i === 0 ? `- ${line}` : `  ${line}`));
}

/** tlsConfig with its serverName (the metrics service's DNS name, filled in by config/default's replacements) following the release. */
function tlsConfigLines(tls: Record<string, unknown>, c: ChartContext): string[] {
  const serverName = typeof tls.serverName === 'string' ? dnsNameTemplate(tls.serverName, c, undefined) : undefined;
  if (serverName === undefined) return yamlLines({ tlsConfig: tls });
  const marker = '__HELM_SERVER_NAME__';
  return yamlLines({ tlsConfig: { ...tls, serverName: marker } }).map((line) => line.replace(marker, serverName));
}

/** Lines merging user-given labels or annotations from `values` into a map, except the keys the chart sets itself. */
export function customMap(values: string, own: string[], indent: number): string[] {
  const omit = own.map((k) => JSON.stringify(k)).join(' ');
  return [
    `{{- with ${values} }}`,
    own.length > 0 ? `{{- with omit . ${omit} }}` : '{{- with . }}',
    `{{- toYaml . | nindent ${indent} }}`,
    '{{- end }}',
    '{{- end }}',
  ];
}

export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
