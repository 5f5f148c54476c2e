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

// sealed-secrets' Controller (pkg/controller/controller.go): unseals each SealedSecret into the Secret of the same
// name, which it owns; says how that went in the Synced condition and in Events; makes the Secret again when it is
// deleted.

import { isDeepStrictEqual } from 'node:util';
import {
  isNotFound,
  newControllerManagedBy,
  TerminalError,
  type Client,
  type k8s,
  type Manager,
  type ReconcileContext,
  type Reconciler,
  type Request,
  type Result,
} from '@kubescaffold/runtime';
import { isControlledBy } from '@kubescaffold/runtime/client';
import { enqueueRequestsFromMapFunc, predicateFuncs } from '@kubescaffold/runtime/controller';
import type { EventRecorder } from '@kubescaffold/runtime/manager';
import { Secrets } from '@kubescaffold/runtime/rest';
import { SealedSecretManagedAnnotation, SealedSecretPatchAnnotation } from '../../api/v1alpha1/scope.js';
import { SealedSecretSynced, type SealedSecret } from '../../api/v1alpha1/sealedsecret_types.js';
import { SealedSecretResource } from '../../api/v1alpha1/zz_generated.resources.js';
import type { KeyRegistry } from '../keys/registry.js';
import { unseal } from '../unseal/unseal.js';

// +kubebuilder:rbac:groups=bitnami.com,resources=sealedsecrets,verbs=get;list;watch
// +kubebuilder:rbac:groups=bitnami.com,resources=sealedsecrets/status,verbs=update
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch;create;update
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch

/** The Event reasons, as the original's constants. */
export const Reasons = {
  /** A SealedSecret was unsealed into its Secret. */
  SuccessUnsealed: 'Unsealed',
  /** The Secret could not be written (API errors, RBAC, a Secret the controller does not own). */
  ErrUpdateFailed: 'ErrUpdateFailed',
  /** The SealedSecret could not be opened: another key, or renamed or moved out of its scope. */
  ErrUnsealFailed: 'ErrUnsealFailed',
} as const;

/** What the reconciler works with. */
export interface SealedSecretReconcilerDeps {
  /** The manager's cached client: SealedSecrets are read from the cache, Secrets and statuses written. */
  client: Client;
  /** An uncached reader: the Secret is read live before it is written, as the original reads it. */
  apiReader: Client;
  recorder: EventRecorder;
  keys: KeyRegistry;
}

/** The controller's flags. */
export interface SealedSecretReconcilerOptions {
  /** --update-status: write the Synced condition and observedGeneration. */
  updateStatus: boolean;
  /** --accept-deprecated-v1-data. */
  acceptV1Data: boolean;
  /** --skip-recreate: do not watch Secrets to make a deleted one again. */
  skipRecreate: boolean;
  /** --max-unseal-retries: failed passes retried (with backoff) before the request is dropped until the next change. */
  maxRetries: number;
  /** The clock of the condition's times. */
  now?: () => Date;
}

/** SealedSecretReconciler reconciles a SealedSecret object. */
export class SealedSecretReconciler implements Reconciler {
  // Failed passes per request, as the original's workqueue counts requeues (NumRequeues).
  private readonly failures = new Map<string, number>();

  constructor(
    private readonly deps: SealedSecretReconcilerDeps,
    private readonly opts: SealedSecretReconcilerOptions,
  ) {}

  /** Unseals the SealedSecret into its Secret, then records the outcome in its status (the original's unseal). */
  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result> {
    const key = `${req.namespace}/${req.name}`;
    let ss: SealedSecret;
    try {
      ss = await this.deps.client.get(SealedSecretResource, req);
    } catch (err) {
      // Deleted: its Secret goes with it, by its owner reference.
      if (isNotFound(err)) {
        this.failures.delete(key);
        return {};
      }
      throw err;
    }
    ctx.log.info('Updating', { key });

    let failure: Error | undefined;
    try {
      await this.unsealInto(ss);
    } catch (err) {
      failure = err as Error;
    }
    // Every pass ends with the status, successful or not; a status that cannot be written is only logged.
    try {
      await this.updateStatus(ss, failure);
    } catch (err) {
      ctx.log.error(err, 'Error updating SealedSecret status', { 'sealed-secret': key });
    }

    if (!failure) {
      this.failures.delete(key);
      return {};
    }
    if (isImmutableError(failure)) {
      this.failures.delete(key);
      throw new TerminalError(formatImmutableError(key), { cause: failure });
    }
    const failed = (this.failures.get(key) ?? 0) + 1;
    if (failed > this.opts.maxRetries) {
      this.failures.delete(key);
      ctx.log.error(failure, 'Error updating, giving up', { key });
      throw TerminalError.wrap(failure);
    }
    this.failures.set(key, failed);
    throw failure;
  }

  private async unsealInto(ss: SealedSecret): Promise<void> {
    const { client, apiReader, recorder, keys } = this.deps;
    let desired: k8s.V1Secret;
    try {
      desired = unseal(ss, keys.privateKeys(), { acceptV1Data: this.opts.acceptV1Data });
    } catch (err) {
      recorder.event(ss, 'Warning', Reasons.ErrUnsealFailed, `Failed to unseal: ${(err as Error).message}`);
      throw err;
    }

    const namespace = ss.metadata?.namespace ?? '';
    const name = ss.metadata?.name ?? '';
    let current: k8s.V1Secret;
    try {
      current = await apiReader.get(Secrets, { namespace, name }).catch(async (err: unknown) => {
        if (!isNotFound(err)) throw err;
        return client.create(Secrets, desired);
      });
    } catch (err) {
      recorder.event(ss, 'Warning', Reasons.ErrUpdateFailed, apiMessage(err));
      throw err;
    }

    if (!isControlledBy(current, ss) && !isAnnotated(current, SealedSecretManagedAnnotation) && !isAnnotated(current, SealedSecretPatchAnnotation)) {
      const msg = `Resource "${current.metadata?.name}" already exists and is not managed by SealedSecret`;
      recorder.event(ss, 'Warning', Reasons.ErrUpdateFailed, msg);
      throw new Error(`failed update: ${msg}`);
    }

    const next = structuredClone(current);
    next.metadata ??= {};
    if (isAnnotated(current, SealedSecretPatchAnnotation)) {
      // Patch: add the unsealed keys, labels and annotations to what the Secret has.
      next.data = { ...next.data, ...desired.data };
      next.metadata.labels = { ...next.metadata.labels, ...desired.metadata?.labels };
      next.metadata.annotations = { ...next.metadata.annotations, ...desired.metadata?.annotations };
      if (isAnnotated(current, SealedSecretManagedAnnotation)) next.metadata.ownerReferences = desired.metadata?.ownerReferences;
    } else {
      next.data = desired.data;
      next.metadata.annotations = desired.metadata?.annotations;
      next.metadata.labels = desired.metadata?.labels;
      next.metadata.ownerReferences = desired.metadata?.ownerReferences;
    }
    next.type = desired.type;

    if (!semanticallyEqual(current, next)) {
      try {
        await client.update(Secrets, next);
      } catch (err) {
        const message = isImmutableError(err as Error) ? formatImmutableError(`${namespace}/${name}`) : apiMessage(err);
        recorder.event(ss, 'Warning', Reasons.ErrUpdateFailed, message);
        throw err;
      }
    }
    recorder.event(ss, 'Normal', Reasons.SuccessUnsealed, 'SealedSecret unsealed successfully');
  }

  /**
   * The Synced condition (updateSealedSecretsStatusConditions): True, or False with the error; its lastUpdateTime is
   * always now, but the status is written only when the condition's status flips or the generation is new, as in Go.
   */
  private async updateStatus(ss: SealedSecret, failure: Error | undefined): Promise<void> {
    if (!this.opts.updateStatus) return;
    const now = (this.opts.now ?? (() => new Date()))();
    // metav1.Time is marshalled at the second.
    const stamp = `${now.toISOString().slice(0, 19)}Z`;
    const status = (ss.status ??= {});
    const conditions = (status.conditions ??= []);
    let cond = conditions.find((c) => c.type === SealedSecretSynced);
    if (!cond) {
      cond = { type: SealedSecretSynced, status: '' };
      conditions.push(cond);
    }
    const want = failure ? 'False' : 'True';
    cond.message = failure ? failure.message : '';
    cond.lastUpdateTime = stamp;
    let required = false;
    if (cond.status !== want) {
      cond.lastTransitionTime = stamp;
      cond.status = want;
      required = true;
    }
    if (required || status.observedGeneration !== ss.metadata?.generation) {
      status.observedGeneration = ss.metadata?.generation;
      if (!cond.message) delete cond.message;
      await this.deps.client.status().update(SealedSecretResource, ss);
    }
  }

  /** setupWithManager sets up the controller with the Manager. */
  setupWithManager(mgr: Manager): void {
    let builder = newControllerManagedBy(mgr)
      .for(SealedSecretResource, {
        // An update is unsealed again only when the spec changed (sealedSecretChanged); creates and deletes always.
        predicates: [predicateFuncs<SealedSecret>({ update: (e) => !isDeepStrictEqual(e.objectOld.spec, e.objectNew.spec) })],
      })
      .named('sealedsecret');
    if (!this.opts.skipRecreate) {
      // A deleted Secret that its SealedSecret controlled, or that was handed over to it, is made again (watchSecrets).
      builder = builder.watches(
        Secrets,
        enqueueRequestsFromMapFunc(async (secret: k8s.V1Secret) => this.ownerToRecreate(secret)),
        { predicates: [predicateFuncs({ create: () => false, update: () => false, generic: () => false })] },
      );
    }
    builder.complete(this);
  }

  private async ownerToRecreate(secret: k8s.V1Secret): Promise<Request[]> {
    const namespace = secret.metadata?.namespace ?? '';
    const name = secret.metadata?.name ?? '';
    try {
      const ss = await this.deps.apiReader.get(SealedSecretResource, { namespace, name });
      return isControlledBy(secret, ss) || isAnnotated(secret, SealedSecretManagedAnnotation) ? [{ namespace, name }] : [];
    } catch {
      // No SealedSecret of that name (or it cannot be read): nothing to make again.
      return [];
    }
  }
}

function isAnnotated(secret: k8s.V1Secret, annotation: string): boolean {
  return secret.metadata?.annotations?.[annotation] === 'true';
}

function isImmutableError(err: Error): boolean {
  return apiMessage(err).endsWith('field is immutable when `immutable` is set');
}

function formatImmutableError(key: string): string {
  return `Error updating ${key}: the target Secret is immutable. Once a Secret is marked as immutable, it is not possible to revert this change nor to mutate the contents of the data field. You can only delete and recreate the Secret.`;
}

// An API error as client-go words it: the Status's message.
function apiMessage(err: unknown): string {
  const body = (err as { body?: { message?: unknown } }).body;
  return typeof body?.message === 'string' ? body.message : (err as Error).message;
}

// apimachinery's Semantic.DeepEqual on what the controller changes: an empty map or list is equal to none.
function semanticallyEqual(a: k8s.V1Secret, b: k8s.V1Secret): boolean {
  const pick = (s: k8s.V1Secret) => ({
    data: orNone(s.data),
    type: s.type,
    labels: orNone(s.metadata?.labels),
    annotations: orNone(s.metadata?.annotations),
    ownerReferences: orNone(s.metadata?.ownerReferences),
  });
  return isDeepStrictEqual(pick(a), pick(b));
}

function orNone<T extends object>(v: T | undefined): T | undefined {
  return v && Object.keys(v).length > 0 ? v : undefined;
}
