/**
 * The platform envtest archives are published for, in Go's words (linux/amd64, darwin/arm64), taken from
 * the machine: the binaries must run here, so there is no flag to pick another one.
 */

/** An operating system and CPU architecture, named as Go names them. */
export interface Platform {
  /** GOOS: "linux", "darwin", ... */
  os: string;
  /** GOARCH: "amd64", "arm64", ... */
  arch: string;
}

const GOOS: Partial<Record<NodeJS.Platform, string>> = { linux: 'linux', darwin: 'darwin', win32: 'windows' };
const GOARCH: Record<string, string> = { x64: 'amd64', arm64: 'arm64', ppc64: 'ppc64le', s390x: 's390x' };

/** This machine's platform; names Node does not map to a GOOS/GOARCH are kept as they are (no archive will match). */
export function hostPlatform(platform: NodeJS.Platform = process.platform, arch: string = process.arch): Platform {
  return { os: GOOS[platform] ?? platform, arch: GOARCH[arch] ?? arch };
}

/** 'os/arch', e.g. linux/amd64. */
export function formatPlatform(p: Platform): string {
  return `${p.os}/${p.arch}`;
}
