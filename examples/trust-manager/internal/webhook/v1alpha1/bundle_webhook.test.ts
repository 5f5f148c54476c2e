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
import type { Bundle } from '../../../api/v1alpha1/bundle_types.js';
import { BundleCustomValidator, validateBundle } from './bundle_webhook.js';

// The webhook logic is plain code: test it directly. The admission server itself is tested by kubescaffold.
function newObject(): Bundle {
  return {
    apiVersion: 'trust.cert-manager.io/v1alpha1',
    kind: 'Bundle',
    metadata: { name: 'test-bundle' },
    spec: { sources: [{ configMap: { name: 'ca-roots', key: 'ca.crt' } }], target: { configMap: { key: 'trust-bundle.pem' } } },
  };
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
    expect(await validator.validateDelete()).toEqual({});
  });

  it("denies a Bundle without sources, with the original's message", () => {
    const obj = newObject();
    obj.spec.sources = [];
    expect(() => validator.validateCreate(obj, context('CREATE'))).toThrow('spec.sources: Forbidden: must define at least one source');
  });

  it('denies a source with both a name and a selector, and a key with includeAllKeys, joining the errors', () => {
    const obj = newObject();
    obj.spec.sources = [{ configMap: { name: 'roots', selector: { matchLabels: { a: 'b' } }, key: 'ca.crt', includeAllKeys: true } }];
    expect(() => validator.validateUpdate(newObject(), obj, context('UPDATE'))).toThrow(
      '[spec.sources[0].configMap: Invalid value: "name: roots, selector: {}": must validate one and only one schema (oneOf): [name, selector]. Found both set, ' +
        'spec.sources[0].configMap: Invalid value: "key: ca.crt, includeAllKeys: true": source configMap key cannot be defined when includeAllKeys is true]',
    );
  });

  it('denies a target that is its own source, reserved label prefixes and a bad selector operator', () => {
    const obj = newObject();
    obj.spec.sources = [{ configMap: { name: obj.metadata.name, key: 'trust-bundle.pem' } }];
    obj.spec.target = {
      configMap: { key: 'trust-bundle.pem', metadata: { labels: { 'trust.cert-manager.io/x': 'y' } } },
      namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'Near' }] },
    };
    expect(validateBundle(obj).map((e) => `${e.field} ${e.message}`)).toEqual([
      'spec.sources[0].configMap.test-bundle.trust-bundle.pem cannot define the same source as target',
      'spec.target.configMap.metadata.labels trust.cert-manager.io/* labels are not allowed',
      'spec.target.namespaceSelector.matchExpressions[0].operator not a valid selector operator',
    ]);
  });
});
