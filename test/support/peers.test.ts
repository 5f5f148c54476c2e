import { afterEach, describe, expect, it, vi } from 'vitest';
import { requirePeer } from './peers.js';

const saved = process.env.REQUIRE_PARITY;
afterEach(() => {
  if (saved === undefined) delete process.env.REQUIRE_PARITY;
  else process.env.REQUIRE_PARITY = saved;
  vi.restoreAllMocks();
});

const missing = (): never => {
  throw new Error('helm is neither cached nor buildable');
};

describe('requirePeer', () => {
  it('gives what finding the peer gives', async () => {
    await expect(requirePeer('the helm checks', () => '/bin/helm')).resolves.toBe('/bin/helm');
    await expect(requirePeer('the helm checks', async () => '/bin/helm')).resolves.toBe('/bin/helm');
  });

  it('fails naming the peer and what is missing under REQUIRE_PARITY=1, as CI sets it', async () => {
    process.env.REQUIRE_PARITY = '1';
    await expect(requirePeer('the helm checks', missing)).rejects.toThrow(
      'the helm checks cannot run: helm is neither cached nor buildable (REQUIRE_PARITY=1 is set',
    );
  });

  it("prints a SKIPPED line and throws the finder's error on locally", async () => {
    delete process.env.REQUIRE_PARITY;
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    await expect(requirePeer('the helm checks', missing)).rejects.toThrow(/^helm is neither cached nor buildable$/);
    expect(warn).toHaveBeenCalledWith('SKIPPED: the helm checks cannot run: helm is neither cached nor buildable');
  });
});
