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

// Package v1alpha1 contains API Schema definitions for the trust v1alpha1 API group.
// +groupName=trust.cert-manager.io

/** GroupVersion is the group and version of the objects in this folder. */
export const GroupVersion = { group: 'trust.cert-manager.io', version: 'v1alpha1' } as const;
