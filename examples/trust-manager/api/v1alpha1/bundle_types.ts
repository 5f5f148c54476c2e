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

import type { Condition, ObjectMeta, TypeMeta } from '@kubescaffold/runtime';

// EDIT THIS FILE!  THIS IS SCAFFOLDING FOR YOU TO OWN!
// NOTE: properties must be written in camelCase, as their JSON names.

/** BundleSpec defines the desired state of Bundle. */
export interface BundleSpec {
  // INSERT ADDITIONAL SPEC FIELDS - desired state of cluster
  // Important: Run "make manifests" to regenerate code after modifying this file
  // The following markers will use OpenAPI v3 schema to validate the value
  // TypeScript types and what they become: node_modules/kubescaffold/docs/types.md
  // The markers: node_modules/kubescaffold/docs/reference/markers.md (or `npx scaffold manifests --markers`)

  /** foo is an example field of Bundle. Edit bundle_types.ts to remove/update */
  // +optional
  foo?: string;
}

/** BundleStatus defines the observed state of Bundle. */
export interface BundleStatus {
  // INSERT ADDITIONAL STATUS FIELD - define observed state of cluster
  // Important: Run "make manifests" to regenerate code after modifying this file

  /**
   * conditions represent the current state of the Bundle resource.
   * Each condition has a unique type and reflects the status of a specific aspect of the resource.
   *
   * Standard condition types include:
   * - "Available": the resource is fully functional
   * - "Progressing": the resource is being created or updated
   * - "Degraded": the resource failed to reach or maintain its desired state
   *
   * The status of each condition is one of True, False, or Unknown.
   */
  // +listType=map
  // +listMapKey=type
  // +optional
  conditions?: Condition[];
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster
/** Bundle is the Schema for the bundles API. */
export interface Bundle extends TypeMeta {
  /** metadata is a standard object's metadata */
  // +optional
  metadata: ObjectMeta;

  /** spec defines the desired state of Bundle */
  // +required
  spec: BundleSpec;

  /** status defines the observed state of Bundle */
  // +optional
  status?: BundleStatus;
}
