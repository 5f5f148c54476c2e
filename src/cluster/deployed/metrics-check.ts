/**
 * Checks the manager's metrics endpoint as Prometheus would reach it: without a token it must refuse, and with the
 * token of a ServiceAccount bound to the project's metrics-reader ClusterRole it must answer. The check account and
 * its binding are created for the check and removed afterwards; what existed before is left alone.
 */
import https from 'node:https';
import http from 'node:http';
import { ClusterRoleBindings, isNotFound, ServiceAccounts, type RestClient } from '@kubescaffold/runtime/rest';
import { FIELD_MANAGER } from '../apply.js';
import { requestToken } from './identity.js';

const CHECK_ACCOUNT = 'kubescaffold-metrics-check';

function get(url: string, token?: string): Promise<number> {
  const lib = url.startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    // The manager's certificate is self-signed here (no cert-manager Secret is mounted): its identity is not checked.
    const req = lib.get(
      url,
      { rejectUnauthorized: false, headers: token ? { Authorization: `Bearer ${token}` } : {}, timeout: 10_000 },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', reject);
  });
}

async function exists(fn: () => Promise<unknown>): Promise<boolean> {
  try {
    await fn();
    return true;
  } catch (e) {
    if (isNotFound(e)) return false;
    throw e;
  }
}

/** The outcome of the check, one line each. */
export async function checkMetrics(
  client: RestClient,
  url: string,
  namespace: string,
  metricsReaderRole: string | undefined,
): Promise<string[]> {
  const lines: string[] = [];
  const anonymous = await get(url);
  lines.push(
    anonymous === 401 || anonymous === 403
      ? `metrics without a token: HTTP ${anonymous}, refused as it should be`
      : `metrics without a token: HTTP ${anonymous}; anyone who reaches the port can read them (config/default serves them with authentication: --metrics-bind-address=:8443 and --metrics-secure)`,
  );
  if (!metricsReaderRole) {
    lines.push(
      'metrics with a token: not checked, config/default renders no ClusterRole granting GET /metrics (kubebuilder names it metrics-reader)',
    );
    return lines;
  }
  const bindingName = `${CHECK_ACCOUNT}-${namespace}`;
  const hadAccount = await exists(() => client.get(ServiceAccounts, { namespace, name: CHECK_ACCOUNT }));
  const hadBinding = await exists(() => client.get(ClusterRoleBindings, { name: bindingName }));
  const apply = { type: 'apply' as const, fieldManager: FIELD_MANAGER, force: true };
  try {
    await client.patch(
      ServiceAccounts,
      { namespace, name: CHECK_ACCOUNT },
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: CHECK_ACCOUNT, namespace } },
      apply,
    );
    await client.patch(
      ClusterRoleBindings,
      { name: bindingName },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: bindingName },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: metricsReaderRole },
        subjects: [{ kind: 'ServiceAccount', name: CHECK_ACCOUNT, namespace }],
      },
      apply,
    );
    const { token } = await requestToken(client, namespace, CHECK_ACCOUNT);
    const status = await get(url, token);
    lines.push(
      status === 200
        ? `metrics with a token bound to ${metricsReaderRole}: HTTP 200`
        : `metrics with a token bound to ${metricsReaderRole}: HTTP ${status}; Prometheus would be refused (the manager's ServiceAccount needs create on tokenreviews and subjectaccessreviews: config/rbac/metrics_auth_role.yaml)`,
    );
  } finally {
    if (!hadBinding) await client.delete(ClusterRoleBindings, { name: bindingName }).catch(() => undefined);
    if (!hadAccount) await client.delete(ServiceAccounts, { namespace, name: CHECK_ACCOUNT }).catch(() => undefined);
  }
  return lines;
}
