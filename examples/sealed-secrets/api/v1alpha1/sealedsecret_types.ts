/*
Copyright 2026 The Sealed Secrets port's authors.

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

import type { bytes, int64, ObjectMeta, Time, TypeMeta } from '@kubescaffold/runtime';

// The types of bitnami-labs/sealed-secrets v0.40.0 (pkg/apis/sealedsecrets/v1alpha1/types.go), property for property.

/**
 * The metadata of the Secret a template makes. Go embeds metav1.ObjectMeta here and generates its schema with
 * controller-gen's crd:generateEmbeddedObjectMeta: the five fields below, unknown fields preserved.
 */
// +kubebuilder:pruning:PreserveUnknownFields
export interface SecretTemplateMetadata {
  // +optional
  name?: string;
  // +optional
  namespace?: string;
  // +optional
  labels?: Record<string, string>;
  // +optional
  annotations?: Record<string, string>;
  // +optional
  finalizers?: string[];
}

/**
 * SecretTemplateSpec describes the structure a Secret should have
 * when created from a template.
 */
export interface SecretTemplateSpec {
  /**
   * Standard object's metadata.
   * More info: https://git.k8s.io/community/contributors/devel/api-conventions.md#metadata
   */
  // +optional
  // +nullable
  metadata?: SecretTemplateMetadata;

  /** Used to facilitate programmatic handling of secret data. */
  // +optional
  type?: string;

  /**
   * Immutable, if set to true, ensures that data stored in the Secret cannot
   * be updated (only object metadata can be modified).
   * If not set to true, the field can be modified at any time.
   * Defaulted to nil.
   */
  // +optional
  immutable?: boolean;

  /**
   * Keys that should be templated using decrypted data.
   * Set a key with the same name as in `encryptedData`
   * to `null` to omit the unsealed data from the final secret.
   */
  // +optional
  // +nullable
  data?: Record<string, string>;
}

// The sealed values, each base64 of RSA-OAEP and AES-GCM ciphertext, by the key they have in the Secret. As in Go,
// the type has no doc comment, so the CRD gives encryptedData no description.

// +kubebuilder:pruning:PreserveUnknownFields
export type SealedSecretEncryptedData = Record<string, string>;

/** SealedSecretSpec is the specification of a SealedSecret. */
export interface SealedSecretSpec {
  /**
   * Template defines the structure of the Secret that will be
   * created from this sealed secret.
   */
  // +optional
  template?: SecretTemplateSpec;

  /** Data is deprecated and will be removed eventually. Use per-value EncryptedData instead. */
  data?: bytes;

  encryptedData: SealedSecretEncryptedData;
}

/** SealedSecretConditionType describes the type of SealedSecret condition. */
export type SealedSecretConditionType = string;

/** SealedSecretSynced means the SealedSecret has been decrypted and the Secret has been updated successfully. */
export const SealedSecretSynced: SealedSecretConditionType = 'Synced';

/** SealedSecretCondition describes the state of a sealed secret at a certain point. */
export interface SealedSecretCondition {
  /**
   * Type of condition for a sealed secret.
   * Valid value: "Synced"
   */
  type: SealedSecretConditionType;
  /**
   * Status of the condition for a sealed secret.
   * Valid values for "Synced": "True", "False", or "Unknown".
   */
  status: string;
  /** The last time this condition was updated. */
  lastUpdateTime?: Time;
  /** Last time the condition transitioned from one status to another. */
  lastTransitionTime?: Time;
  /** The reason for the condition's last transition. */
  reason?: string;
  /** A human readable message indicating details about the transition. */
  message?: string;
}

/** SealedSecretStatus is the most recently observed status of the SealedSecret. */
export interface SealedSecretStatus {
  /** ObservedGeneration reflects the generation most recently observed by the sealed-secrets controller. */
  // +optional
  observedGeneration?: int64;

  /** Represents the latest available observations of a sealed secret's current state. */
  // +optional
  conditions?: SealedSecretCondition[];
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Status",type="string",JSONPath=".status.conditions[0].message"
// +kubebuilder:printcolumn:name="Synced",type="string",JSONPath=".status.conditions[0].status"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"
/**
 * SealedSecret is the K8s representation of a "sealed Secret" - a
 * regular k8s Secret that has been sealed (encrypted) using the
 * controller's key.
 */
export interface SealedSecret extends TypeMeta {
  metadata?: ObjectMeta;

  spec: SealedSecretSpec;

  // +optional
  status?: SealedSecretStatus;
}
