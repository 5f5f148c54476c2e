// Hand-written kustomizations with the edits users commonly make to a kubebuilder config tree.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export function writeTree(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    const file = join(root, rel);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
}

export const userEdits: Record<string, string> = {
  'base/kustomization.yaml': `resources:
- deployment.yaml
- service.yaml
- rbac.yaml
- workloads.yaml
- custom.yaml
configMapGenerator:
- name: manager-config
  literals:
  - LOG_LEVEL=info
  - "QUOTED='single quoted'"
  files:
  - controller_manager_config.yaml
  - renamed.yaml=extra.txt
  envs:
  - settings.env
secretGenerator:
- name: manager-secret
  literals:
  - token=s3cr3t
  - long=${'x'.repeat(90)}
`,
  'base/controller_manager_config.yaml': `apiVersion: config.example.com/v1
kind: ManagerConfig
health:
  healthProbeBindAddress: :8081
leaderElection:
  leaderElect: true
`,
  'base/extra.txt': 'line one\nline two  \n',
  'base/settings.env': '# settings\nFOO=bar\n\n  BAZ=qux=quux\nEMPTY\n',
  'base/deployment.yaml': `apiVersion: apps/v1
kind: Deployment
metadata:
  name: controller-manager
  namespace: system
  labels:
    control-plane: controller-manager
spec:
  selector:
    matchLabels:
      control-plane: controller-manager
  replicas: 1
  template:
    metadata:
      labels:
        control-plane: controller-manager
    spec:
      serviceAccountName: controller-manager
      containers:
      - name: manager
        image: controller:latest
        args: [--leader-elect]
        env:
        - name: A
          value: "1"
        - name: B
          value: b
        envFrom:
        - configMapRef:
            name: manager-config
        ports:
        - containerPort: 8081
          name: health
          protocol: TCP
        - containerPort: 8443
          name: https
        volumeMounts:
        - name: config
          mountPath: /config
        resources:
          limits:
            cpu: 500m
      - name: proxy
        image: quay.io/brancz/kube-rbac-proxy:v0.16.0
        env:
        - name: TOKEN
          valueFrom:
            secretKeyRef:
              name: manager-secret
              key: token
      volumes:
      - name: config
        configMap:
          name: manager-config
      - name: certs
        secret:
          secretName: manager-secret
      tolerations:
      - key: a
        operator: Exists
`,
  'base/service.yaml': `apiVersion: v1
kind: Service
metadata:
  name: metrics
  namespace: system
spec:
  selector:
    control-plane: controller-manager
  ports:
  - port: 8443
    targetPort: https
    name: https
`,
  'base/rbac.yaml': `apiVersion: v1
kind: ServiceAccount
metadata:
  name: controller-manager
  namespace: system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: manager-role
  namespace: system
rules:
- apiGroups: [""]
  resources: [configmaps]
  resourceNames: [manager-config]
  verbs: [get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: manager-rolebinding
  namespace: system
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: manager-role
subjects:
- kind: ServiceAccount
  name: controller-manager
  namespace: system
- kind: ServiceAccount
  name: default
- kind: User
  name: jane
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: manager-role
rules:
- apiGroups: [apps]
  resources: [deployments]
  verbs: [get, list]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: manager-role
subjects:
- kind: ServiceAccount
  name: controller-manager
  namespace: system
`,
  'base/workloads.yaml': `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: manager
  namespace: system
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: controller-manager
  minReplicas: 1
  maxReplicas: 3
---
apiVersion: batch/v1
kind: CronJob
metadata:
  name: cleanup
  namespace: system
spec:
  schedule: "*/5 * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          serviceAccountName: controller-manager
          restartPolicy: OnFailure
          containers:
          - name: cleanup
            image: busybox:1.36
            command: ["sh", "-c", "echo cleaning up; sleep 1"]
            envFrom:
            - configMapRef:
                name: manager-config
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: cache
  namespace: system
spec:
  serviceName: metrics
  selector:
    matchLabels:
      app: cache
  template:
    metadata:
      labels:
        app: cache
    spec:
      containers:
      - name: cache
        image: redis:7
  volumeClaimTemplates:
  - metadata:
      name: data
    spec:
      accessModes: [ReadWriteOnce]
      resources:
        requests:
          storage: 1Gi
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: metrics
  namespace: system
spec:
  rules:
  - host: metrics.example.com
    http:
      paths:
      - path: /
        pathType: Prefix
        backend:
          service:
            name: metrics
            port:
              number: 8443
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: manager
  namespace: system
spec:
  minAvailable: 1
  selector:
    matchLabels:
      control-plane: controller-manager
`,
  'base/custom.yaml': `apiVersion: crew.example.com/v1
kind: Captain
metadata:
  name: captain-sample
  namespace: system
spec:
  ranks: [ensign, lieutenant]
  ships:
  - name: enterprise
    class: constitution
  - name: defiant
    class: escort
  schedule: "0 0 * * *"
  ratio: 0.5
  big: 1234567.5
  tiny: 0.00001
  enabled: yes
  onCall: "on"
  version: "1.21"
  empty: ""
  nothing: null
  hex: 0x1F
  octalish: "0755"
  date: 2021-01-01
  special: "tab\\there"
  colon: "a: b"
  hash: "a #b"
  star: "*"
  dash: "- x"
  quote: "it's"
  unicode: "größe"
  "8080": numeric key
  y: short yes key
  multi: |
    first line
    second line
  folded_long: this is a deliberately long sentence that goes past the eighty column limit so that it must be folded by the emitter
  single_long: '*this one starts with a star and is long enough that the single-quoted scalar has to be folded too'
  double_long: "tab\\tand a long sentence after it so that the double-quoted scalar gets folded past the eighty column limit  with two spaces"
  leading_space: " leading"
  trailing_space: "trailing "
  keep_newlines: "kept\\n\\n"
  leading_newline: "\\nafter a blank first line\\n"
  trailing_space_lines: "line with trailing space \\nnext\\n"
  backslash: 'C:\\path\\to'
  version_like: "1.2.3"
  octal_like: "010"
  exp_like: "1e5"
  inf_like: ".inf"
  colon_end: "ends with:"
  question: "? mark"
  bang: "!important"
  percent: "%d"
  list_of_lists: [[a, b], [], [c]]
  map_in_list: [{}, {a: 1}]
  emoji: "🚀 launch"
  negative: -3
  float_small: 1.5e-7
  float_exp: 12345678.9
`,
  'overlay/kustomization.yaml': `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- ../base
namespace: staging
namePrefix: team-
nameSuffix: -v2
commonLabels:
  app.kubernetes.io/part-of: fleet
labels:
- pairs:
    tier: backend
  includeTemplates: true
- pairs:
    owner: ops
  fields:
  - path: spec/jobTemplate/metadata/labels
    kind: CronJob
    create: true
commonAnnotations:
  team: "platform"
  note: multi word value
images:
- name: controller
  newName: registry.example.com/fleet/manager
  newTag: v1.2.3
- name: quay.io/brancz/kube-rbac-proxy
  digest: sha256:abcdef0123456789
- name: busybox
  tagSuffix: -musl
- name: redis
  newName: valkey/valkey
replicas:
- name: controller-manager
  count: 3
configMapGenerator:
- name: manager-config
  behavior: merge
  literals:
  - LOG_LEVEL=debug
  - EXTRA=1
- name: overlay-config
  options:
    disableNameSuffixHash: true
    labels:
      generated: "true"
    annotations:
      origin: overlay
  literals:
  - a=b
generatorOptions:
  labels:
    gen: all
secretGenerator:
- name: tls
  type: kubernetes.io/tls
  literals:
  - tls.crt=CERT
  - tls.key=KEY
patches:
- path: manager_patch.yaml
- target:
    kind: Deployment
    labelSelector: control-plane=controller-manager
  patch: |-
    - op: add
      path: /spec/template/spec/containers/0/args/-
      value: --zap-log-level=debug
    - op: replace
      path: /spec/template/spec/containers/0/resources/limits/cpu
      value: "1"
- target:
    kind: Captain
    name: captain-.*
  patch: |-
    apiVersion: crew.example.com/v1
    kind: Captain
    metadata:
      name: ignored
    spec:
      ships:
      - name: voyager
      ranks: null
      added: true
- target:
    group: apps
    version: v1
    kind: StatefulSet
  path: statefulset_patch.yaml
- patch: |-
    apiVersion: v1
    kind: Service
    metadata:
      name: metrics
      namespace: system
    spec:
      ports:
      - port: 9090
        name: extra
        protocol: UDP
- patch: |-
    apiVersion: policy/v1
    kind: PodDisruptionBudget
    metadata:
      name: manager
      namespace: system
    $patch: delete
patchesStrategicMerge:
- cronjob_patch.yaml
patchesJson6902:
- target:
    group: networking.k8s.io
    version: v1
    kind: Ingress
    name: metrics
  path: ingress_patch.yaml
replacements:
- path: replacements.yaml
- source:
    kind: Service
    name: metrics
    fieldPath: spec.ports.0.port
  targets:
  - select:
      kind: Captain
    fieldPaths:
    - spec.port
    - spec.ships.[name=enterprise].port
    options:
      create: true
`,
  'overlay/manager_patch.yaml': `apiVersion: apps/v1
kind: Deployment
metadata:
  name: controller-manager
  namespace: system
spec:
  template:
    spec:
      containers:
      - name: manager
        env:
        - name: B
          value: patched
        - name: C
          value: new
        ports:
        - containerPort: 9443
          name: webhook
          protocol: TCP
        volumeMounts:
        - name: certs
          mountPath: /certs
          readOnly: true
      - name: proxy
        $patch: delete
      - name: sidecar
        image: sidecar:1.0
      volumes:
      - name: config
        configMap:
          name: manager-config
          defaultMode: 420
      tolerations:
      - key: b
        operator: Exists
      nodeSelector:
        kubernetes.io/os: linux
`,
  'overlay/statefulset_patch.yaml': `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: whatever
spec:
  template:
    metadata:
      annotations:
        patched: "yes"
`,
  'overlay/cronjob_patch.yaml': `apiVersion: batch/v1
kind: CronJob
metadata:
  name: cleanup
  namespace: system
spec:
  schedule: "0 * * * *"
  suspend: true
`,
  'overlay/ingress_patch.yaml': `- op: replace
  path: /spec/rules/0/host
  value: staging.example.com
- op: add
  path: /spec/ingressClassName
  value: nginx
- op: copy
  from: /spec/rules/0
  path: /spec/rules/-
- op: remove
  path: /spec/rules/1/http
- op: test
  path: /spec/rules/0/http/paths/0/pathType
  value: Prefix
`,
  'overlay/replacements.yaml': `- source:
    kind: ConfigMap
    name: manager-config
    fieldPath: metadata.name
  targets:
  - select:
      kind: Deployment
    fieldPaths:
    - spec.template.metadata.annotations.[config.example.com/name]
    options:
      create: true
  - select:
      kind: Captain
    reject:
    - name: nothing-here
    fieldPaths:
    - spec.schedule
    options:
      delimiter: ' '
      index: 1
- source:
    kind: Deployment
    name: controller-manager
    fieldPath: spec.template.spec.containers.[name=manager].image
    options:
      delimiter: ':'
      index: 1
  targets:
  - select:
      kind: Captain
    fieldPaths:
    - spec.version
`,
};

/** A kustomization using a field scaffold build does not implement. */
export const unsupported: Record<string, string> = {
  'kustomization.yaml': `resources:
- cm.yaml
vars:
- name: X
  objref:
    kind: ConfigMap
    name: cm
    apiVersion: v1
`,
  'cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n',
};

/** Strategic-merge corner cases: directives, scalar merge lists, multi-key lists, nulls. */
export const strategicMergeCases: Record<string, string> = {
  'kustomization.yaml': `resources:
- objects.yaml
patches:
- path: deployment_patch.yaml
- path: service_patch.yaml
- target:
    kind: ConfigMap
  patch: |-
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: any
      finalizers: [b.example.com/keep]
      labels:
        $patch: replace
        fresh: "true"
    data:
      drop: null
`,
  'objects.yaml': `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  creationTimestamp: null
spec:
  selector:
    matchLabels: {app: web}
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 1
  template:
    metadata:
      labels: {app: web}
    spec:
      initContainers:
      - name: init
        image: busybox
      containers:
      - name: web
        image: nginx
        ports:
        - containerPort: 80
        - containerPort: 53
          protocol: UDP
        env:
        - name: A
          valueFrom:
            fieldRef:
              fieldPath: metadata.name
        volumeMounts:
        - name: data
          mountPath: /data
        - name: tmp
          mountPath: /tmp
      volumes:
      - name: data
        emptyDir: {}
      - name: tmp
        emptyDir: {}
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports:
  - port: 80
    name: http
  - port: 53
    protocol: UDP
    name: dns
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  finalizers: [a.example.com/keep]
  labels:
    old: "true"
data:
  keep: "1"
  drop: "2"
`,
  'deployment_patch.yaml': `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  strategy:
    $patch: replace
    type: Recreate
  template:
    spec:
      initContainers:
      - name: migrate
        image: migrate:1
      containers:
      - name: web
        ports:
        - containerPort: 80
          name: http
        - containerPort: 8080
        env:
        - name: A
          value: plain
        - name: B
          value: b
        volumeMounts:
        - mountPath: /tmp
          $patch: delete
      volumes:
      - $patch: replace
      - name: data
        persistentVolumeClaim:
          claimName: data
`,
  'service_patch.yaml': `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  ports:
  - port: 80
    targetPort: 8080
  - port: 443
    name: https
`,
};
