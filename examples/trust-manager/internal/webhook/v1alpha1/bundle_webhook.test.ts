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

import { describe, expect, it } from 'vitest';
import { newLogger } from '@kubescaffold/runtime';
import type { AdmissionContext } from '@kubescaffold/runtime/webhook';
import { readSample } from '@kubescaffold/envtest';
import { BundleResource } from '../../../api/v1alpha1/zz_generated.resources.js';
import type { Bundle } from '../../../api/v1alpha1/bundle_types.js';
import { BundleCustomValidator } from './bundle_webhook.js';

// The webhook logic is plain code: test it directly. The admission server itself is tested by kubescaffold.
// The object is the sample's (config/samples), so that a field added to the spec is written there once.
function newObject(): Bundle {
  return readSample(BundleResource, 'config/samples/trust_v1alpha1_bundle.yaml', {
    name: 'test-bundle',
  });
}

// Through console, where vitest shows a test's log lines with it, and only if it fails (silent in vitest.config.ts).
const testLog = newLogger({ sink: (line) => console.log(line) }).withName('test');

function context(operation: 'CREATE' | 'UPDATE' | 'DELETE'): AdmissionContext {
  return {
    signal: AbortSignal.timeout(10_000),
    log: testLog,
    request: {
      uid: 'test',
      kind: { group: 'trust.cert-manager.io', version: 'v1alpha1', kind: 'Bundle' },
      resource: { group: 'trust.cert-manager.io', version: 'v1alpha1', resource: 'bundles' },
      operation,
      userInfo: { username: 'test' },
    },
  } as AdmissionContext;
}

describe('BundleCustomValidator', () => {
  const validator = new BundleCustomValidator();

  it('admits a valid Bundle on create, update and delete', async () => {
    expect(await validator.validateCreate(newObject(), context('CREATE'))).toEqual({});
    expect(await validator.validateUpdate(newObject(), newObject(), context('UPDATE'))).toEqual({});
    expect(await validator.validateDelete(newObject(), context('DELETE'))).toEqual({});
    // TODO(user): add cases your validator must reject, checking the field errors it returns.
  });
});
