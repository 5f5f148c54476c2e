import { describe, expect, it } from 'vitest';
import { executableFormat, readExecutableFormat } from '../../src/envtest/binaries/executable-format.js';
import { hostPlatform } from '../../src/envtest/binaries/platform.js';

function elf(machine: number): Buffer {
  const b = Buffer.alloc(64);
  b.writeUInt32BE(0x7f454c46, 0);
  b[4] = 2;
  b[5] = 1; // little-endian
  b.writeUInt16LE(machine, 18);
  return b;
}

function machO(cpu: number): Buffer {
  const b = Buffer.alloc(64);
  b.writeUInt32LE(0xfeedfacf, 0);
  b.writeUInt32LE(cpu, 4);
  return b;
}

describe('executableFormat', () => {
  it('reads the platform of ELF and Mach-O programs', () => {
    expect(executableFormat(elf(0x3e))).toEqual({ kind: 'binary', platform: { os: 'linux', arch: 'amd64' } });
    expect(executableFormat(elf(0xb7))).toEqual({ kind: 'binary', platform: { os: 'linux', arch: 'arm64' } });
    expect(executableFormat(machO(0x0100000c))).toEqual({ kind: 'binary', platform: { os: 'darwin', arch: 'arm64' } });
    expect(executableFormat(machO(0x01000007))).toEqual({ kind: 'binary', platform: { os: 'darwin', arch: 'amd64' } });
  });

  it('tells scripts and unknown content apart', () => {
    expect(executableFormat(Buffer.from('#!/bin/sh\n'))).toEqual({ kind: 'script' });
    expect(executableFormat(Buffer.from('<html>Not Found</html>'))).toMatchObject({
      kind: 'unknown',
      detail: 'neither an ELF nor a Mach-O program nor a script',
    });
    expect(executableFormat(elf(0x28))).toMatchObject({
      kind: 'unknown',
      detail: 'an ELF program for machine type 0x28',
    });
  });

  it("finds this machine's platform in the running node binary", async () => {
    expect(await readExecutableFormat(process.execPath)).toEqual({ kind: 'binary', platform: hostPlatform() });
  });
});

describe('hostPlatform', () => {
  it("names Node's platforms and architectures as Go does", () => {
    expect(hostPlatform('linux', 'x64')).toEqual({ os: 'linux', arch: 'amd64' });
    expect(hostPlatform('darwin', 'arm64')).toEqual({ os: 'darwin', arch: 'arm64' });
  });
});
