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

import type { TestProject } from 'vitest/node';
import { startSharedTestEnvironment, type SharedTestEnvironment } from '@kubescaffold/envtest';

// The tests' `inject('envtest')` returns what this setup provides.
declare module 'vitest' {
  export interface ProvidedContext {
    envtest: SharedTestEnvironment;
  }
}

// One kube-apiserver and etcd for the whole `npm test` run, with the CRDs of config/crd/bases (vitest's globalSetup,
// as kubebuilder's suite_test.go starts one in BeforeSuite). Each test file works in namespaces of its own; a test
// that needs a control plane to itself (its own flags, webhooks served by the test) still starts a TestEnvironment.
export default function setup(project: TestProject): Promise<() => Promise<void>> {
  return startSharedTestEnvironment({ crdDirectoryPaths: ['config/crd/bases'] }, (shared) =>
    project.provide('envtest', shared),
  );
}
