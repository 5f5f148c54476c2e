/**
 * A Captain kind with webhooks, written the way `scaffold create webhook --defaulting --programmatic-validation
 * --conversion --spoke v2` lays them out and a user fills them in: v1 is the hub (storage version), v2 a spoke whose
 * spec is shaped differently, so conversions must really move fields.
 */
import {
  defineResource,
  type Condition,
  type int32,
  type ObjectMeta,
  type TypeMeta,
} from '../../../src/runtime/index.js';
import {
  field,
  newWebhookManagedBy,
  type AdmissionContext,
  type Conversion,
  type CustomDefaulter,
  type CustomValidator,
  type FieldError,
  type ValidationResult,
  type WebhookServerProvider,
} from '../../../src/runtime/webhook/index.js';

// api/v1/captain_types.ts
export interface CaptainSpec {
  foo?: string;
  replicas?: int32;
  mode?: 'Fast' | 'Slow';
}
export interface CaptainStatus {
  conditions?: Condition[];
}
export interface Captain extends TypeMeta {
  metadata: ObjectMeta;
  spec: CaptainSpec;
  status?: CaptainStatus;
}

// api/v2/captain_types.ts
export interface CaptainV2Spec {
  foo?: string;
  size?: { replicas?: int32 };
  speed?: 'fast' | 'slow';
}
export interface CaptainV2 extends TypeMeta {
  metadata: ObjectMeta;
  spec: CaptainV2Spec;
  status?: CaptainStatus;
}

export const CaptainResource = defineResource<Captain>({
  group: 'crew.example.com',
  version: 'v1',
  kind: 'Captain',
  plural: 'captains',
  namespaced: true,
});
export const CaptainV2Resource = defineResource<CaptainV2>({
  group: 'crew.example.com',
  version: 'v2',
  kind: 'Captain',
  plural: 'captains',
  namespaced: true,
});

/** Metadata of the sample Captains, as the API server sends it (managedFields included). */
export const captainSampleMetadata = {
  name: 'c1',
  namespace: 'ns',
  uid: '6a1f0c2e-0000-4000-8000-000000000001',
  resourceVersion: '42',
  generation: 3,
  creationTimestamp: '2026-08-22T10:00:00Z' as unknown as Date,
  labels: { team: 'a' },
  annotations: { note: 'kept' },
  managedFields: [{ manager: 'kubectl', operation: 'Update', apiVersion: 'crew.example.com/v1' }],
};

/** A Captain at v1 (the hub), the twin of captainV2Sample. */
export const captainV1Sample: Captain = {
  apiVersion: 'crew.example.com/v1',
  kind: 'Captain',
  metadata: captainSampleMetadata,
  spec: { foo: 'bar', replicas: 3, mode: 'Slow' },
  status: {
    conditions: [
      { type: 'Ready', status: 'True', reason: 'Ok', message: 'fine', lastTransitionTime: '2026-08-22T10:00:00Z' },
    ],
  },
};

/** The same Captain at v2, as captainConversion converts captainV1Sample. */
export const captainV2Sample: CaptainV2 = {
  apiVersion: 'crew.example.com/v2',
  kind: 'Captain',
  metadata: captainSampleMetadata,
  spec: { foo: 'bar', size: { replicas: 3 }, speed: 'slow' },
  status: captainV1Sample.status,
};

export const DEFAULTED_LABEL = 'crew.example.com/defaulted';
export const PROTECTED_LABEL = 'crew.example.com/protected';
export const MAX_REPLICAS = 10;

// api/v2/captain_conversion.ts
export const captainConversion: Conversion<CaptainV2, Captain> = {
  convertTo(src: CaptainV2): Captain {
    const spec: CaptainSpec = {};
    if (src.spec.foo !== undefined) spec.foo = src.spec.foo;
    if (src.spec.size?.replicas !== undefined) spec.replicas = src.spec.size.replicas;
    if (src.spec.speed !== undefined) spec.mode = src.spec.speed === 'fast' ? 'Fast' : 'Slow';
    return {
      apiVersion: 'crew.example.com/v1',
      kind: 'Captain',
      metadata: src.metadata,
      spec,
      ...(src.status ? { status: src.status } : {}),
    };
  },
  convertFrom(hub: Captain): CaptainV2 {
    const spec: CaptainV2Spec = {};
    if (hub.spec.foo !== undefined) spec.foo = hub.spec.foo;
    if (hub.spec.replicas !== undefined) spec.size = { replicas: hub.spec.replicas };
    if (hub.spec.mode !== undefined) spec.speed = hub.spec.mode === 'Fast' ? 'fast' : 'slow';
    return {
      apiVersion: 'crew.example.com/v2',
      kind: 'Captain',
      metadata: hub.metadata,
      spec,
      ...(hub.status ? { status: hub.status } : {}),
    };
  },
};

// internal/webhook/v1/captain_webhook.ts

// +kubebuilder:webhook:path=/mutate-crew-example-com-v1-captain,mutating=true,failurePolicy=fail,sideEffects=None,groups=crew.example.com,resources=captains,verbs=create;update,versions=v1,name=mcaptain-v1.kb.io,admissionReviewVersions=v1

/** Sets the defaults of a Captain. */
export class CaptainCustomDefaulter implements CustomDefaulter<Captain> {
  default(obj: Captain, ctx: AdmissionContext): void {
    ctx.log.debug('Defaulting for Captain', { name: obj.metadata.name });
    obj.spec ??= {};
    obj.spec.replicas ??= 1;
    obj.spec.mode ??= 'Fast';
    obj.metadata.labels = { ...obj.metadata.labels, [DEFAULTED_LABEL]: 'true' };
  }
}

// +kubebuilder:webhook:path=/validate-crew-example-com-v1-captain,mutating=false,failurePolicy=fail,sideEffects=None,groups=crew.example.com,resources=captains,verbs=create;update;delete,versions=v1,name=vcaptain-v1.kb.io,admissionReviewVersions=v1

/** Validates Captains on create, update and delete. */
export class CaptainCustomValidator implements CustomValidator<Captain> {
  validateCreate(obj: Captain): ValidationResult {
    return this.validateSpec(obj);
  }

  validateUpdate(oldObj: Captain, newObj: Captain): ValidationResult {
    const result = this.validateSpec(newObj);
    if (oldObj.spec.mode !== undefined && newObj.spec.mode !== oldObj.spec.mode) {
      result.errors!.push(field.forbidden('spec.mode', 'is immutable once set'));
    }
    return result;
  }

  validateDelete(obj: Captain): ValidationResult {
    if (obj.metadata.labels?.[PROTECTED_LABEL] === 'true') {
      return {
        errors: [field.forbidden('metadata.labels', `a Captain labelled ${PROTECTED_LABEL}=true may not be deleted`)],
      };
    }
    return {};
  }

  private validateSpec(obj: Captain): ValidationResult & { errors: FieldError[]; warnings: string[] } {
    const errors: FieldError[] = [];
    const warnings: string[] = [];
    if (obj.spec.foo === 'forbidden') errors.push(field.invalid('spec.foo', obj.spec.foo, 'must not be "forbidden"'));
    if (obj.spec.replicas !== undefined && obj.spec.replicas > MAX_REPLICAS) {
      errors.push(field.invalid('spec.replicas', obj.spec.replicas, `must be at most ${MAX_REPLICAS}`));
    }
    if (obj.spec.foo === 'deprecated') warnings.push('spec.foo: the value "deprecated" is deprecated');
    return { errors, warnings };
  }
}

/** Registers the Captain webhooks with the manager. */
export function setupCaptainWebhookWithManager(mgr: WebhookServerProvider): void {
  newWebhookManagedBy(mgr, CaptainResource)
    .withDefaulter(new CaptainCustomDefaulter())
    .withValidator(new CaptainCustomValidator())
    .withConversion([{ resource: CaptainV2Resource, conversion: captainConversion }])
    .complete();
}

const conditions = {
  type: 'array',
  items: {
    type: 'object',
    required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
    properties: {
      type: { type: 'string' },
      status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
      observedGeneration: { type: 'integer', format: 'int64' },
      lastTransitionTime: { type: 'string', format: 'date-time' },
      reason: { type: 'string' },
      message: { type: 'string' },
    },
  },
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['type'],
};

function version(name: string, storage: boolean, spec: object) {
  return {
    name,
    served: true,
    storage,
    subresources: { status: {} },
    schema: {
      openAPIV3Schema: {
        type: 'object',
        required: ['spec'],
        properties: {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          metadata: { type: 'object' },
          spec: { type: 'object', properties: spec },
          status: { type: 'object', properties: { conditions } },
        },
      },
    },
  };
}

/** config/crd/bases/crew.example.com_captains.yaml, as `scaffold manifests` writes it (v1 marked storageversion). */
export const CAPTAIN_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'captains.crew.example.com' },
  spec: {
    group: 'crew.example.com',
    names: { kind: 'Captain', listKind: 'CaptainList', plural: 'captains', singular: 'captain' },
    scope: 'Namespaced',
    versions: [
      version('v1', true, {
        foo: { type: 'string' },
        replicas: { type: 'integer', format: 'int32' },
        mode: { type: 'string', enum: ['Fast', 'Slow'] },
      }),
      version('v2', false, {
        foo: { type: 'string' },
        size: { type: 'object', properties: { replicas: { type: 'integer', format: 'int32' } } },
        speed: { type: 'string', enum: ['fast', 'slow'] },
      }),
    ],
  },
};

/** config/webhook/manifests.yaml, as `scaffold manifests` writes it from the markers above. */
export const WEBHOOK_MANIFESTS = `---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: mutating-webhook-configuration
webhooks:
- admissionReviewVersions:
  - v1
  clientConfig:
    service:
      name: webhook-service
      namespace: system
      path: /mutate-crew-example-com-v1-captain
  failurePolicy: Fail
  name: mcaptain-v1.kb.io
  rules:
  - apiGroups:
    - crew.example.com
    apiVersions:
    - v1
    operations:
    - CREATE
    - UPDATE
    resources:
    - captains
  sideEffects: None
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: validating-webhook-configuration
webhooks:
- admissionReviewVersions:
  - v1
  clientConfig:
    service:
      name: webhook-service
      namespace: system
      path: /validate-crew-example-com-v1-captain
  failurePolicy: Fail
  name: vcaptain-v1.kb.io
  rules:
  - apiGroups:
    - crew.example.com
    apiVersions:
    - v1
    operations:
    - CREATE
    - UPDATE
    - DELETE
    resources:
    - captains
  sideEffects: None
`;
