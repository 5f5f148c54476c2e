// Scaffolded config trees for the kustomize tests: the lead's scaffold functions write them, these helpers add what a
// later issue (webhooks) or `scaffold manifests` would, and uncomment sections the way kubebuilder's plugins do.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { scaffoldCreateAPI, type CreateAPIOptions } from '../../src/scaffold/api.js';
import { registryDependencies } from '../../src/scaffold/dependencies.js';
import { scaffoldInit, type InitOptions } from '../../src/scaffold/init.js';
import { scaffoldCreateWebhook, type CreateWebhookOptions } from '../../src/scaffold/webhook.js';

export interface Project {
  root: string;
  name: string;
  cleanup: () => void;
}

const baseInit: InitOptions = {
  domain: 'example.com',
  license: 'apache2',
  multigroup: false,
  namespaced: false,
  dependencies: () => registryDependencies('0.1.0'),
  cliVersion: '0.1.0',
};

export function newProject(name: string, init: Partial<InitOptions> = {}): Project {
  const base = mkdtempSync(join(tmpdir(), 'kubescaffold-kustomize-'));
  const root = join(base, name);
  mkdirSync(root);
  scaffoldInit(root, { ...baseInit, ...init });
  return { root, name, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

export function createAPI(
  p: Project,
  api: Partial<CreateAPIOptions> & { group: string; version: string; kind: string },
): void {
  scaffoldCreateAPI(p.root, { resource: true, controller: true, namespaced: true, force: false, ...api });
}

/** One config/webhook/manifests.yaml document, as `scaffold manifests` writes it for a defaulting (mutate) or validating (validate) webhook. */
function webhookConfiguration(
  o: { group: string; version: string; kind: string; plural: string },
  prefix: 'mutate' | 'validate',
): string {
  const [kind, name] =
    prefix === 'mutate'
      ? (['MutatingWebhookConfiguration', 'mutating-webhook-configuration'] as const)
      : (['ValidatingWebhookConfiguration', 'validating-webhook-configuration'] as const);
  const path = `/${o.group.replace(/\./g, '-')}-${o.version}-${o.kind.toLowerCase()}`;
  return `---
apiVersion: admissionregistration.k8s.io/v1
kind: ${kind}
metadata:
  name: ${name}
webhooks:
- admissionReviewVersions:
  - v1
  clientConfig:
    service:
      name: webhook-service
      namespace: system
      path: /${prefix}${path}
  failurePolicy: Fail
  name: ${prefix[0]}${o.kind.toLowerCase()}-${o.version}.kb.io
  rules:
  - apiGroups:
    - ${o.group}
    apiVersions:
    - ${o.version}
    operations:
    - CREATE
    - UPDATE
    resources:
    - ${o.plural}
  sideEffects: None
`;
}

/** `scaffold create webhook`, plus the config/webhook/manifests.yaml that `scaffold manifests` would write for it. */
export function createWebhook(
  p: Project,
  o: Partial<CreateWebhookOptions> & {
    group: string;
    version: string;
    kind: string;
    qualifiedGroup: string;
    plural: string;
  },
): void {
  scaffoldCreateWebhook(p.root, {
    defaulting: false,
    validation: false,
    conversion: false,
    spokes: [],
    force: false,
    ...o,
  });
  const w = { group: o.qualifiedGroup, version: o.version, kind: o.kind, plural: o.plural };
  const docs = [
    o.defaulting ? webhookConfiguration(w, 'mutate') : '',
    o.validation ? webhookConfiguration(w, 'validate') : '',
  ];
  if (docs.join('') !== '') write(p, 'config/webhook/manifests.yaml', docs.join(''));
}

export function write(p: Project, rel: string, text: string): void {
  const file = join(p.root, rel);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

export function read(p: Project, rel: string): string {
  return readFileSync(join(p.root, rel), 'utf8');
}

export function edit(p: Project, rel: string, fn: (text: string) => string): void {
  const before = read(p, rel);
  const after = fn(before);
  if (after === before) throw new Error(`editing ${rel} changed nothing`);
  write(p, rel, after);
}

/** A CRD as `scaffold manifests` writes it into config/crd/bases. */
export function writeCRD(
  p: Project,
  o: { group: string; kind: string; plural: string; versions: string[]; scope?: 'Namespaced' | 'Cluster' },
): void {
  const versions = o.versions
    .map(
      (v, i) => `  - name: ${v}
    schema:
      openAPIV3Schema:
        description: ${o.kind} is the Schema for the ${o.plural} API.
        properties:
          apiVersion:
            description: 'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values.'
            type: string
          kind:
            type: string
          metadata:
            type: object
          spec:
            description: spec defines the desired state of ${o.kind}
            properties:
              foo:
                description: foo is an example field of ${o.kind}. Edit ${o.kind.toLowerCase()}_types.ts to remove/update
                type: string
              replicas:
                format: int32
                minimum: 0
                type: integer
            type: object
          status:
            properties:
              conditions:
                items:
                  properties:
                    type:
                      type: string
                  required:
                  - type
                  type: object
                type: array
                x-kubernetes-list-map-keys:
                - type
                x-kubernetes-list-type: map
            type: object
        required:
        - spec
        type: object
    served: true
    storage: ${i === 0}
    subresources:
      status: {}`,
    )
    .join('\n');
  write(
    p,
    `config/crd/bases/${o.group}_${o.plural}.yaml`,
    `---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  annotations:
    controller-gen.kubebuilder.io/version: v0.21.0
  name: ${o.plural}.${o.group}
spec:
  group: ${o.group}
  names:
    kind: ${o.kind}
    listKind: ${o.kind}List
    plural: ${o.plural}
    singular: ${o.kind.toLowerCase()}
  scope: ${o.scope ?? 'Namespaced'}
  versions:
${versions}
`,
  );
}

/** Removes the leading '#' of the lines [from, through] (kubebuilder's UncommentCode), keeping scaffold markers commented. */
export function uncommentBlock(text: string, from: string, through?: string, before?: string): string {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.startsWith(from));
  if (start < 0) throw new Error(`no line starts with ${from}`);
  let end = start;
  if (before !== undefined) {
    end = lines.findIndex((l, i) => i >= start && l.startsWith(before)) - 1;
    if (end < start) throw new Error(`no line starts with ${before} after ${from}`);
  } else if (through !== undefined) {
    end = lines.findIndex((l, i) => i >= start && l.startsWith(through));
    if (end < 0) throw new Error(`no line starts with ${through} after ${from}`);
  }
  for (let i = start; i <= end; i++) {
    if (lines[i]!.startsWith('#') && !lines[i]!.includes('+kubebuilder:scaffold')) lines[i] = lines[i]!.slice(1);
  }
  return lines.join('\n');
}

/** Enables prometheus (with its TLS patch when certs is set) and the network policies in config/default. */
export function enablePrometheusAndNetworkPolicy(p: Project): void {
  edit(p, 'config/default/kustomization.yaml', (t) =>
    t.replace('#- ../prometheus', '- ../prometheus').replace('#- ../network-policy', '- ../network-policy'),
  );
}

/**
 * Turns on the [SHARDING] sections of config/default, as the sharding guide says: the resource and patch lines under
 * each `# [SHARDING]` comment are uncommented (the comment's own prose stays).
 */
export function enableSharding(p: Project): void {
  edit(p, 'config/default/kustomization.yaml', (text) => {
    const lines = text.split('\n');
    let sections = 0;
    for (let i = 0; i < lines.length; i++) {
      if (!lines[i]!.startsWith('# [SHARDING]')) continue;
      sections++;
      let j = i + 1;
      while (j < lines.length && !lines[j]!.startsWith('#-')) j++;
      for (; j < lines.length && lines[j]!.startsWith('#'); j++) lines[j] = lines[j]!.slice(1);
    }
    if (sections !== 2) throw new Error(`expected 2 [SHARDING] sections in config/default, found ${sections}`);
    return lines.join('\n');
  });
}

/** kubebuilder's config/webhook and config/certmanager (testdata/project-v4 layout) for the given webhook kinds. */
export function addWebhookAndCertManager(
  p: Project,
  o: { group: string; version: string; kind: string; plural: string; conversion?: boolean },
): void {
  write(p, 'config/webhook/manifests.yaml', webhookConfiguration(o, 'mutate') + webhookConfiguration(o, 'validate'));
  write(
    p,
    'config/webhook/kustomization.yaml',
    `resources:
- manifests.yaml
- service.yaml

configurations:
- kustomizeconfig.yaml
`,
  );
  write(
    p,
    'config/webhook/kustomizeconfig.yaml',
    `# the following config is for teaching kustomize where to look at when substituting nameReference.
# It requires kustomize v2.1.0 or newer to work properly.
nameReference:
- kind: Service
  version: v1
  fieldSpecs:
  - kind: MutatingWebhookConfiguration
    group: admissionregistration.k8s.io
    path: webhooks/clientConfig/service/name
  - kind: ValidatingWebhookConfiguration
    group: admissionregistration.k8s.io
    path: webhooks/clientConfig/service/name

namespace:
- kind: MutatingWebhookConfiguration
  group: admissionregistration.k8s.io
  path: webhooks/clientConfig/service/namespace
  create: true
- kind: ValidatingWebhookConfiguration
  group: admissionregistration.k8s.io
  path: webhooks/clientConfig/service/namespace
  create: true
`,
  );
  write(
    p,
    'config/webhook/service.yaml',
    `apiVersion: v1
kind: Service
metadata:
  labels:
    app.kubernetes.io/name: ${p.name}
    app.kubernetes.io/managed-by: kustomize
  name: webhook-service
  namespace: system
spec:
  ports:
    - port: 443
      protocol: TCP
      targetPort: 9443
  selector:
    control-plane: controller-manager
    app.kubernetes.io/name: ${p.name}
`,
  );
  write(
    p,
    'config/certmanager/kustomization.yaml',
    `resources:
- issuer.yaml
- certificate-webhook.yaml
- certificate-metrics.yaml

configurations:
- kustomizeconfig.yaml
`,
  );
  write(
    p,
    'config/certmanager/kustomizeconfig.yaml',
    `# This configuration is for teaching kustomize how to update name ref substitution
nameReference:
- kind: Issuer
  group: cert-manager.io
  fieldSpecs:
  - kind: Certificate
    group: cert-manager.io
    path: spec/issuerRef/name
`,
  );
  write(
    p,
    'config/certmanager/issuer.yaml',
    `# The following manifest contains a self-signed issuer CR.
apiVersion: cert-manager.io/v1
kind: Issuer
metadata:
  labels:
    app.kubernetes.io/name: ${p.name}
    app.kubernetes.io/managed-by: kustomize
  name: selfsigned-issuer
  namespace: system
spec:
  selfSigned: {}
`,
  );
  const certificate = (name: string, secret: string) => `apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  labels:
    app.kubernetes.io/name: ${p.name}
    app.kubernetes.io/managed-by: kustomize
  name: ${name}  # this name should match the one appeared in kustomizeconfig.yaml
  namespace: system
spec:
  # SERVICE_NAME and SERVICE_NAMESPACE will be substituted by kustomize
  # replacements in the config/default/kustomization.yaml file.
  dnsNames:
  - SERVICE_NAME.SERVICE_NAMESPACE.svc
  - SERVICE_NAME.SERVICE_NAMESPACE.svc.cluster.local
  issuerRef:
    kind: Issuer
    name: selfsigned-issuer
  secretName: ${secret}
`;
  write(p, 'config/certmanager/certificate-webhook.yaml', certificate('serving-cert', 'webhook-server-cert'));
  write(p, 'config/certmanager/certificate-metrics.yaml', certificate('metrics-certs', 'metrics-server-cert'));
  write(
    p,
    'config/default/manager_webhook_patch.yaml',
    `# This patch ensures the webhook certificates are properly mounted in the manager container.
- op: add
  path: /spec/template/spec/containers/0/args/-
  value: --webhook-cert-path=/tmp/k8s-webhook-server/serving-certs
- op: add
  path: /spec/template/spec/containers/0/volumeMounts/-
  value:
    mountPath: /tmp/k8s-webhook-server/serving-certs
    name: webhook-certs
    readOnly: true
- op: add
  path: /spec/template/spec/containers/0/ports/-
  value:
    containerPort: 9443
    name: webhook-server
    protocol: TCP
- op: add
  path: /spec/template/spec/volumes/-
  value:
    name: webhook-certs
    secret:
      secretName: webhook-server-cert
`,
  );
  write(
    p,
    'config/network-policy/allow-webhook-traffic.yaml',
    `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  labels:
    app.kubernetes.io/name: ${p.name}
    app.kubernetes.io/managed-by: kustomize
  name: allow-webhook-traffic
  namespace: system
spec:
  podSelector:
    matchLabels:
      control-plane: controller-manager
      app.kubernetes.io/name: ${p.name}
  policyTypes:
    - Ingress
  ingress:
    - from:
      - namespaceSelector:
          matchLabels:
            webhook: enabled
      ports:
        - port: 443
          protocol: TCP
`,
  );
  edit(p, 'config/network-policy/kustomization.yaml', (t) => `${t.trimEnd()}\n- allow-webhook-traffic.yaml\n`);

  // What kubebuilder's kustomize plugin uncomments in config/default for webhooks with cert-manager and metrics certs.
  edit(p, 'config/default/kustomization.yaml', (t) => {
    let out = t.replace('#- ../webhook', '- ../webhook').replace('#- ../certmanager', '- ../certmanager');
    out = uncommentBlock(out, '#- path: cert_metrics_manager_patch.yaml', '#    kind: Deployment');
    out = uncommentBlock(out, '#- path: manager_webhook_patch.yaml', '#    kind: Deployment');
    // The conversion blocks target CRDs and only make sense (and only parse) with a conversion webhook.
    out = o.conversion
      ? uncommentBlock(out, '#replacements:', '# +kubebuilder:scaffold:crdkustomizecainjectionname')
      : uncommentBlock(
          out,
          '#replacements:',
          undefined,
          '# - source: # Uncomment the following block if you have a ConversionWebhook',
        );
    if (o.conversion) {
      const crdTarget = (index: number) => `     - select:
         kind: CustomResourceDefinition
         name: ${o.plural}.${o.group}
       fieldPaths:
         - .metadata.annotations.[cert-manager.io/inject-ca-from]
       options:
         delimiter: '/'
         index: ${index}
         create: true
`;
      out = out.replace(
        '# +kubebuilder:scaffold:crdkustomizecainjectionns',
        `${crdTarget(0)}# +kubebuilder:scaffold:crdkustomizecainjectionns`,
      );
      out = out.replace(
        '# +kubebuilder:scaffold:crdkustomizecainjectionname',
        `${crdTarget(1)}# +kubebuilder:scaffold:crdkustomizecainjectionname`,
      );
    }
    return out;
  });
  edit(p, 'config/prometheus/kustomization.yaml', (t) => uncommentBlock(t, '#patches:', '#      kind: ServiceMonitor'));

  if (o.conversion) {
    write(
      p,
      `config/crd/patches/webhook_in_${o.plural}.yaml`,
      `# The following patch enables a conversion webhook for the CRD
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${o.plural}.${o.group}
spec:
  conversion:
    strategy: Webhook
    webhook:
      clientConfig:
        service:
          namespace: system
          name: webhook-service
          path: /convert
      conversionReviewVersions:
      - v1
`,
    );
    edit(p, 'config/crd/kustomization.yaml', (t) =>
      uncommentBlock(t, '#configurations:', '#- kustomizeconfig.yaml').replace(
        '# +kubebuilder:scaffold:crdkustomizewebhookpatch',
        `- path: patches/webhook_in_${o.plural}.yaml\n# +kubebuilder:scaffold:crdkustomizewebhookpatch`,
      ),
    );
  }
}
