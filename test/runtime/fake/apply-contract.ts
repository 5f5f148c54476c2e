/**
 * Server-side apply's contract: field ownership, removal of fields an owner stops applying, and the 409 an apply
 * conflict answers. It runs against the fake client (fake.test.ts) and a real API server
 * (contract.integration.test.ts) with the same literal expectations, so the fake answers a conflict as the server does.
 */
import { describe, expect, it } from 'vitest';
import { ApiError, Namespaces } from '../../../src/runtime/rest/index.js';
import { extract, type Client } from '../../../src/runtime/client/index.js';
import { Widgets, type Widget } from './contract.js';

/** Registers the apply contract's tests; `client()` returns the client under test, ready for Widgets. */
export function describeApplyContract(name: string, client: () => Client): void {
  let n = 0;
  const namespace = async (): Promise<string> => {
    const ns = `apply-${process.pid}-${++n}`;
    await client().create(Namespaces, { metadata: { name: ns } });
    return ns;
  };
  const rejection = async (
    p: Promise<unknown>,
  ): Promise<Pick<ApiError, 'code' | 'reason' | 'message'> & { causes: unknown }> => {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    const e = err as ApiError;
    return { code: e.code, reason: e.reason, message: e.status.message ?? '', causes: e.status.details?.causes };
  };

  describe(`server-side apply: ${name}`, () => {
    it('creates the object, records its owner as an Apply entry, and extract reads back exactly the applied fields', async () => {
      const ns = await namespace();
      const config = { metadata: { namespace: ns, name: 'w', labels: { team: 'a' } }, spec: { size: 1 } };
      const stored = await client().apply(Widgets, config, { fieldOwner: 'owner-a' });
      expect(stored.spec).toEqual({ size: 1 });
      const entry = stored.metadata?.managedFields?.find((e) => e.manager === 'owner-a');
      expect(entry?.operation).toBe('Apply');
      expect(entry?.fieldsV1).toMatchObject({
        'f:spec': { 'f:size': {} },
        'f:metadata': { 'f:labels': { 'f:team': {} } },
      });
      expect(extract(stored, 'owner-a')).toEqual({
        apiVersion: 'contract.kubescaffold.dev/v1',
        kind: 'Widget',
        ...config,
      });
      expect(extract(stored, 'nobody')).toEqual({
        apiVersion: 'contract.kubescaffold.dev/v1',
        kind: 'Widget',
        metadata: { namespace: ns, name: 'w' },
      });
    });

    it('removes a field its owner stops applying, but keeps one another manager applied with the same value', async () => {
      const ns = await namespace();
      const key = { namespace: ns, name: 'w' };
      await client().apply(Widgets, { metadata: key, spec: { size: 1, color: 'red' } }, { fieldOwner: 'owner-a' });
      await client().apply(Widgets, { metadata: key, spec: { size: 1 } }, { fieldOwner: 'owner-b' });
      const after = await client().apply(Widgets, { metadata: key, spec: {} }, { fieldOwner: 'owner-a' });
      // color was owner-a's alone and goes; size stays, owner-b applied it too.
      expect(after.spec).toEqual({ size: 1 });
    });

    it("answers an apply that changes another manager's field 409 Conflict naming the manager and the field", async () => {
      const ns = await namespace();
      const key = { namespace: ns, name: 'w' };
      await client().apply(Widgets, { metadata: key, spec: { size: 1, color: 'red' } }, { fieldOwner: 'owner-a' });
      expect(
        await rejection(client().apply(Widgets, { metadata: key, spec: { size: 2 } }, { fieldOwner: 'owner-b' })),
      ).toEqual({
        code: 409,
        reason: 'Conflict',
        message: 'Apply failed with 1 conflict: conflict with "owner-a": .spec.size',
        causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "owner-a"', field: '.spec.size' }],
      });
      expect(
        await rejection(
          client().apply(Widgets, { metadata: key, spec: { size: 2, color: 'blue' } }, { fieldOwner: 'owner-b' }),
        ),
      ).toEqual({
        code: 409,
        reason: 'Conflict',
        message: 'Apply failed with 2 conflicts: conflicts with "owner-a":\n- .spec.color\n- .spec.size',
        causes: [
          { reason: 'FieldManagerConflict', message: 'conflict with "owner-a"', field: '.spec.color' },
          { reason: 'FieldManagerConflict', message: 'conflict with "owner-a"', field: '.spec.size' },
        ],
      });
    });

    it('names an updater by its apiVersion, and force takes the field from its former owner', async () => {
      const ns = await namespace();
      const key = { namespace: ns, name: 'w' };
      const created = await client().create(Widgets, { metadata: key, spec: { size: 1 } } as Widget, {
        fieldManager: 'editor',
      });
      expect(created.metadata?.managedFields?.map((e) => [e.manager, e.operation])).toEqual([['editor', 'Update']]);
      expect(
        (await rejection(client().apply(Widgets, { metadata: key, spec: { size: 2 } }, { fieldOwner: 'owner-a' })))
          .message,
      ).toBe('Apply failed with 1 conflict: conflict with "editor" using contract.kubescaffold.dev/v1: .spec.size');
      const forced = await client().apply(
        Widgets,
        { metadata: key, spec: { size: 2 } },
        { fieldOwner: 'owner-a', force: true },
      );
      expect(forced.spec?.size).toBe(2);
      // The editor keeps .spec, the object its create added; .spec.size is owner-a's now.
      expect(forced.metadata?.managedFields?.map((e) => [e.manager, e.fieldsV1])).toEqual([
        ['owner-a', { 'f:spec': { 'f:size': {} } }],
        ['editor', { 'f:spec': {} }],
      ]);
    });

    it('applies status through status(), recorded with subresource status, and leaves spec alone', async () => {
      const ns = await namespace();
      const key = { namespace: ns, name: 'w' };
      await client().apply(Widgets, { metadata: key, spec: { size: 1 } }, { fieldOwner: 'owner-a' });
      const stored = await client()
        .status()
        .apply(Widgets, { metadata: key, spec: { size: 5 }, status: { ready: true } }, { fieldOwner: 'status-owner' });
      expect(stored.status).toEqual({ ready: true });
      expect(stored.spec).toEqual({ size: 1 });
      const entry = stored.metadata?.managedFields?.find((e) => e.manager === 'status-owner');
      expect([entry?.operation, entry?.subresource, entry?.fieldsV1]).toEqual([
        'Apply',
        'status',
        { 'f:status': { 'f:ready': {} } },
      ]);
      expect(extract(stored, 'status-owner', { subresource: 'status' }).status).toEqual({ ready: true });
    });
  });
}
