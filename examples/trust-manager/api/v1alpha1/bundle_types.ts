/*
Copyright 2026 The trust-manager port's authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

import type { Condition, k8s, ObjectMeta, TypeMeta } from '@kubescaffold/runtime';

// The types of cert-manager/trust-manager v0.25.0 (pkg/apis/trust/v1alpha1/types_bundle.go), property for property,
// but additionalFormats (JKS and PKCS#12 outputs), which this port leaves out (see the README).

/** The label each target carries, naming its Bundle; the target cache holds only objects with it. */
export const BUNDLE_LABEL_KEY = 'trust.cert-manager.io/bundle';
/** The annotation each target carries: a hash of the PEM bundle and the target's metadata. */
export const BUNDLE_HASH_ANNOTATION_KEY = 'trust.cert-manager.io/hash';
/** The condition type that says whether every target was written. */
export const BUNDLE_CONDITION_SYNCED = 'Synced';

/** SourceObjectKeySelector is a reference to a source object and its `data` key(s) in the trust namespace. */
// +structType=atomic
// +kubebuilder:validation:ExactlyOneOf=name;selector
export interface SourceObjectKeySelector {
  /**
   * name is the name of the source object in the trust namespace.
   * This field must be left empty when `selector` is set
   */
  // +optional
  // +kubebuilder:validation:MinLength=1
  // +kubebuilder:validation:MaxLength=253
  name?: string;

  /**
   * selector is the label selector to use to fetch a list of objects. Must not be set
   * when `name` is set.
   */
  // +optional
  selector?: k8s.V1LabelSelector;

  /** key of the entry in the object's `data` field to be used. */
  // +optional
  // +kubebuilder:validation:MinLength=1
  // +kubebuilder:validation:MaxLength=253
  key?: string;

  /**
   * includeAllKeys is a flag to include all keys in the object's `data` field to be used. False by default.
   * This field must not be true when `key` is set.
   */
  // +optional
  includeAllKeys?: boolean;
}

/**
 * BundleSource is the set of sources whose data will be appended and synced to
 * the BundleTarget in all Namespaces.
 */
// +structType=atomic
// +kubebuilder:validation:ExactlyOneOf=configMap;secret;inLine;useDefaultCAs
export interface BundleSource {
  /**
   * configMap is a reference (by name) to a ConfigMap's `data` key(s), or to a
   * list of ConfigMap's `data` key(s) using label selector, in the trust namespace.
   */
  // +optional
  configMap?: SourceObjectKeySelector;

  /**
   * secret is a reference (by name) to a Secret's `data` key(s), or to a
   * list of Secret's `data` key(s) using label selector, in the trust namespace.
   */
  // +optional
  secret?: SourceObjectKeySelector;

  /** inLine is a simple string to append as the source data. */
  // +optional
  // +kubebuilder:validation:MinLength=1
  // +kubebuilder:validation:MaxLength=1048576
  inLine?: string;

  /**
   * useDefaultCAs indicates whether the default CA bundle should be used as a source.
   * The default CA bundle is available only if trust-manager was installed with
   * default CA support enabled, either via the Helm chart or by starting the
   * trust-manager controller with the "--default-package-location" flag.
   * If default CA support was not enabled at startup, setting this field to true
   * will result in reconciliation failure.
   * The version of the default CA package used for this Bundle is reported in
   * status.defaultCAVersion.
   */
  // +optional
  useDefaultCAs?: boolean;
}

/** TargetMetadata defines the default labels and annotations to be copied to the Kubernetes Secret or ConfigMap bundle targets. */
// +kubebuilder:validation:MinProperties=1
export interface TargetMetadata {
  /** annotations is a key value map to be copied to the target. */
  // +optional
  // +kubebuilder:validation:MinProperties=1
  annotations?: Record<string, string>;

  /** labels is a key value map to be copied to the target. */
  // +optional
  // +kubebuilder:validation:MinProperties=1
  labels?: Record<string, string>;
}

/** TargetTemplate defines the form of the Kubernetes Secret or ConfigMap bundle targets. */
export interface TargetTemplate {
  /** key is the key of the entry in the object's `data` field to be used. */
  // +required
  // +kubebuilder:validation:MinLength=1
  // +kubebuilder:validation:MaxLength=253
  key: string;

  /** metadata is an optional set of labels and annotations to be copied to the target. */
  // +optional
  metadata?: TargetMetadata;
}

/** BundleTarget is the target resource that the Bundle will sync all source data to. */
// +kubebuilder:validation:AtLeastOneOf=configMap;secret
export interface BundleTarget {
  /**
   * configMap is the target ConfigMap in Namespaces that all Bundle source
   * data will be synced to.
   */
  // +optional
  configMap?: TargetTemplate;

  /**
   * secret is the target Secret that all Bundle source data will be synced to.
   * Using Secrets as targets is only supported if enabled at trust-manager startup.
   * By default, trust-manager has no permissions for writing to secrets and can only read secrets in the trust namespace.
   */
  // +optional
  secret?: TargetTemplate;

  /**
   * namespaceSelector will, if set, only sync the target resource in
   * Namespaces which match the selector.
   */
  // +optional
  namespaceSelector?: k8s.V1LabelSelector;
}

/** BundleSpec defines the desired state of a Bundle. */
export interface BundleSpec {
  /** sources is a set of references to data whose data will sync to the target. */
  // +required
  // +listType=atomic
  // +kubebuilder:validation:MinItems=1
  // +kubebuilder:validation:MaxItems=100
  sources: BundleSource[];

  /** target is the target location in all namespaces to sync source data to. */
  // +optional
  target?: BundleTarget;
}

/** BundleStatus defines the observed state of the Bundle. */
// +kubebuilder:validation:MinProperties=1
export interface BundleStatus {
  /** conditions represent the latest available observations of the Bundle's current state. */
  // +listType=map
  // +listMapKey=type
  // +optional
  // +kubebuilder:validation:MinItems=0
  // +kubebuilder:validation:MaxItems=10
  conditions?: Condition[];

  /**
   * defaultCAVersion is the version of the default CA package used when resolving
   * the default CA source(s) for this Bundle (for example, when any source has
   * useDefaultCAs set to true), if applicable.
   * Bundles resolved from identical sets of default CA certificates will report
   * the same defaultCAVersion value.
   */
  // +optional
  // +kubebuilder:validation:MinLength=1
  // +kubebuilder:validation:MaxLength=253
  defaultCAVersion?: string;
}

// +kubebuilder:object:root=true
// +kubebuilder:printcolumn:name="ConfigMap Target",type="string",JSONPath=".spec.target.configMap.key",description="Bundle ConfigMap Target Key"
// +kubebuilder:printcolumn:name="Secret Target",type="string",JSONPath=".spec.target.secret.key",description="Bundle Secret Target Key"
// +kubebuilder:printcolumn:name="Synced",type="string",JSONPath=`.status.conditions[?(@.type == "Synced")].status`,description="Bundle has been synced"
// +kubebuilder:printcolumn:name="Reason",type="string",JSONPath=`.status.conditions[?(@.type == "Synced")].reason`,description="Reason Bundle has Synced status"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Timestamp Bundle was created"
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster
export interface Bundle extends TypeMeta {
  /**
   * metadata is the standard object's metadata.
   * More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
   */
  // +optional
  metadata: ObjectMeta;

  /** spec represents the desired state of the Bundle resource. */
  // +required
  spec: BundleSpec;

  /** status of the Bundle. This is set and managed automatically. */
  // +optional
  status?: BundleStatus;
}
