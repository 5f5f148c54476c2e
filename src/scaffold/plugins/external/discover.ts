import { readdirSync, statSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ScaffoldError } from '../../../errors.js';

// Where kubebuilder finds external plugins (pkg/cli/options.go): <root>/<name>/<version>/<executable>, the root being
// $EXTERNAL_PLUGINS_PATH, else $XDG_CONFIG_HOME/kubebuilder/plugins, else ~/.config/kubebuilder/plugins on Linux and
// ~/Library/Application Support/kubebuilder/plugins on macOS.

/** An external plugin found on disk. */
export interface ExternalPlugin {
  /** The plugin's folder name, e.g. sampleexternalplugin or myplugin.acme.io. */
  name: string;
  /** Its version folder, e.g. v1 or v2-alpha. */
  version: string;
  /** `name/version`, the key --plugins and PROJECT's layout use. */
  key: string;
  /** The executable. */
  path: string;
}

/** Where discovery looks, and the environment it reads. */
export interface DiscoveryEnvironment {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  home: string;
}

/** The current process's environment, platform and home folder. */
export function processEnvironment(): DiscoveryEnvironment {
  return { env: process.env, platform: process.platform, home: homedir() };
}

/**
 * The folder that holds external plugins, as kubebuilder computes it; throws when EXTERNAL_PLUGINS_PATH names a path
 * that does not exist, or on a system kubebuilder does not look on (only Linux and macOS).
 */
export function pluginsRoot({ env, platform, home }: DiscoveryEnvironment): string {
  const given = env.EXTERNAL_PLUGINS_PATH;
  if (given) {
    try {
      statSync(given);
    } catch {
      throw new ScaffoldError(
        `EXTERNAL_PLUGINS_PATH is ${given}, which does not exist; point it at the folder that holds <name>/<version>/<name> plugin executables, or unset it`,
      );
    }
    return given;
  }
  if (platform !== 'linux' && platform !== 'darwin')
    throw new ScaffoldError(
      `external plugins are looked for on Linux and macOS only (as kubebuilder looks for them), not on ${platform}; set EXTERNAL_PLUGINS_PATH to the folder that holds them`,
    );
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, 'kubebuilder', 'plugins');
  return platform === 'darwin'
    ? join(home, 'Library', 'Application Support', 'kubebuilder', 'plugins')
    : join(home, '.config', 'kubebuilder', 'plugins');
}

/** The plugins a lookup found, and the problems of the folders that looked like plugins but were not usable. */
export interface Discovery {
  root: string;
  plugins: ExternalPlugin[];
  /** Per `name/version`, why it cannot run (not executable, a bad name or version): reported when it is asked for. */
  problems: Map<string, string>;
}

/**
 * Every plugin under the plugins root: for each `<name>/<version>/` folder, the file named `<name>`, or whose name up to
 * its first dot is `<name>` (sample.sh for sample). A missing root holds no plugins.
 */
export function discoverExternalPlugins(environment: DiscoveryEnvironment = processEnvironment()): Discovery {
  const root = pluginsRoot(environment);
  const discovery: Discovery = { root, plugins: [], problems: new Map() };
  for (const name of subfolders(root)) {
    for (const version of subfolders(join(root, name))) {
      const key = `${name}/${version}`;
      const folder = join(root, name, version);
      const file = entries(folder).find((f) => f === name || f.split('.')[0] === name);
      if (file === undefined) continue;
      const path = join(folder, file);
      const problem =
        nameProblem(name) ??
        versionProblem(version) ??
        (isExecutableFile(path) ? undefined : `${path} is not an executable file; make it one (chmod +x)`);
      if (problem !== undefined) discovery.problems.set(key, problem);
      else discovery.plugins.push({ name, version, key, path });
    }
  }
  return discovery;
}

/** Why a plugin's folder name is not a plugin name (kubebuilder's: a DNS-1123 subdomain), or undefined. */
export function nameProblem(name: string): string | undefined {
  const label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
  if (name.length > 253 || !name.split('.').every((part) => label.test(part)))
    return `the plugin name "${name}" is not a DNS-1123 subdomain (lowercase letters, digits, '-' and '.')`;
  return undefined;
}

/** Why a version folder is not a plugin version (v<number>, optionally -alpha or -beta), or undefined. */
export function versionProblem(version: string): string | undefined {
  return /^v\d+(-(alpha|beta))?$/.test(version)
    ? undefined
    : `the plugin version "${version}" is not one kubebuilder reads (v1, v2-alpha, v3-beta, ...)`;
}

function subfolders(dir: string): string[] {
  return entries(dir).filter((name) => stat(join(dir, name))?.isDirectory() === true);
}

function entries(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

function stat(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function isExecutableFile(path: string): boolean {
  const s = stat(path);
  return s !== undefined && s.isFile() && (s.mode & 0o111) !== 0;
}
