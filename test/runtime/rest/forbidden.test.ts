import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/runtime/rest/errors.js';
import { permissionKey, requestPermission } from '../../../src/runtime/rest/forbidden.js';

describe('the permission a request needs, read from its method and path as the API server does', () => {
  it.each([
    [
      'GET',
      '/api/v1/namespaces/ns/configmaps/cm',
      false,
      { verb: 'get', group: '', resource: 'configmaps', namespace: 'ns', name: 'cm' },
    ],
    ['GET', '/apis/apps/v1/deployments', false, { verb: 'list', group: 'apps', resource: 'deployments' }],
    [
      'GET',
      '/apis/crew.example.com/v1/namespaces/ns/captains',
      true,
      { verb: 'watch', group: 'crew.example.com', resource: 'captains', namespace: 'ns' },
    ],
    [
      'POST',
      '/api/v1/namespaces/ns/serviceaccounts/sa/token',
      false,
      { verb: 'create', group: '', resource: 'serviceaccounts', subresource: 'token', namespace: 'ns', name: 'sa' },
    ],
    [
      'PUT',
      '/apis/crew.example.com/v1/namespaces/ns/captains/c/status',
      false,
      {
        verb: 'update',
        group: 'crew.example.com',
        resource: 'captains',
        subresource: 'status',
        namespace: 'ns',
        name: 'c',
      },
    ],
    ['PATCH', '/api/v1/namespaces/ns', false, { verb: 'patch', group: '', resource: 'namespaces', name: 'ns' }],
    [
      'DELETE',
      '/api/v1/namespaces/ns/pods',
      false,
      { verb: 'deletecollection', group: '', resource: 'pods', namespace: 'ns' },
    ],
    [
      'DELETE',
      '/apis/rbac.authorization.k8s.io/v1/clusterroles/r',
      false,
      { verb: 'delete', group: 'rbac.authorization.k8s.io', resource: 'clusterroles', name: 'r' },
    ],
  ] as const)('%s %s', (method, path, watch, expected) => {
    expect(requestPermission(method, path, watch)).toEqual(expected);
  });

  it('names no resource for paths outside the API groups', () => {
    expect(requestPermission('GET', '/version')).toBeUndefined();
    expect(requestPermission('GET', '/apis')).toBeUndefined();
  });

  it('is the same key for every object needing the same permission', () => {
    expect(permissionKey(requestPermission('GET', '/api/v1/namespaces/ns/secrets/a')!)).toBe(
      permissionKey(requestPermission('GET', '/api/v1/namespaces/ns/secrets/b')!),
    );
  });

  it('is attached to a 403 answer, and only to it', () => {
    const status = (code: number) =>
      JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, message: 'no' });
    expect(ApiError.fromResponse(403, status(403), 'GET', '/api/v1/namespaces/ns/pods', true).forbidden).toEqual({
      verb: 'watch',
      group: '',
      resource: 'pods',
      namespace: 'ns',
    });
    expect(ApiError.fromResponse(404, status(404), 'GET', '/api/v1/namespaces/ns/pods/p').forbidden).toBeUndefined();
  });
});
