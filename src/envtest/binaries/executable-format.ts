/**
 * Which platform an executable is for, from its first bytes (ELF or Mach-O headers). Running a foreign
 * binary is no test: the kernel refuses it with ENOEXEC and execvp then hands it to /bin/sh, which
 * prints nonsense. Reading the header gives a clear "this is a darwin/arm64 program" instead.
 */
import { open } from 'node:fs/promises';
import type { Platform } from './platform.js';

/** What the header says: a platform, a script (#!, runs anywhere it has its interpreter), or unknown. */
export type ExecutableFormat =
  { kind: 'binary'; platform: Platform } | { kind: 'script' } | { kind: 'unknown'; detail: string };

const ELF_MACHINES: Record<number, string> = { 0x3e: 'amd64', 0xb7: 'arm64', 0x15: 'ppc64le', 0x16: 's390x' };
const MACHO_CPUS: Record<number, string> = { 0x01000007: 'amd64', 0x0100000c: 'arm64' };

/** Reads the format from a header (the first 64 bytes are plenty). */
export function executableFormat(header: Buffer): ExecutableFormat {
  if (header.length >= 2 && header[0] === 0x23 && header[1] === 0x21) return { kind: 'script' };
  if (header.length >= 20 && header.readUInt32BE(0) === 0x7f454c46) {
    const little = header[5] === 1;
    const machine = little ? header.readUInt16LE(18) : header.readUInt16BE(18);
    const arch = ELF_MACHINES[machine];
    return arch
      ? { kind: 'binary', platform: { os: 'linux', arch } }
      : { kind: 'unknown', detail: `an ELF program for machine type 0x${machine.toString(16)}` };
  }
  if (header.length >= 8) {
    const magicLE = header.readUInt32LE(0);
    if (magicLE === 0xfeedfacf || magicLE === 0xfeedface) {
      const arch = MACHO_CPUS[header.readUInt32LE(4)];
      return arch
        ? { kind: 'binary', platform: { os: 'darwin', arch } }
        : { kind: 'unknown', detail: 'a Mach-O program for another CPU' };
    }
    if (header.readUInt32BE(0) === 0xcafebabe) return { kind: 'unknown', detail: 'a universal Mach-O program' };
    if (header[0] === 0x4d && header[1] === 0x5a)
      return { kind: 'binary', platform: { os: 'windows', arch: 'unknown' } };
  }
  return { kind: 'unknown', detail: 'neither an ELF nor a Mach-O program nor a script' };
}

/** Reads the header of the file at `path`. */
export async function readExecutableFormat(path: string): Promise<ExecutableFormat> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(64);
    const { bytesRead } = await fh.read(buf, 0, 64, 0);
    return executableFormat(buf.subarray(0, bytesRead));
  } finally {
    await fh.close();
  }
}
