import type { PluginReplay } from '../plugin.js';
import { isDeployImageConfig, type DeployImageConfig } from './config.js';

/** The `create api` commands that scaffold again each resource PROJECT records for the plugin. */
export function replayDeployImage(recorded: unknown): PluginReplay[] {
  if (!isDeployImageConfig(recorded)) return [];
  const config: DeployImageConfig = recorded;
  return (config.resources ?? []).map((r): PluginReplay => {
    const o = r.options ?? {};
    const flags: Record<string, unknown> = {};
    if (o.image !== undefined) flags.image = o.image;
    if (o.containerCommand) flags.imageContainerCommand = o.containerCommand;
    if (o.containerPort) flags.imageContainerPort = o.containerPort;
    if (o.runAsUser) flags.runAsUser = o.runAsUser;
    return {
      command: 'create api',
      request: { group: r.group ?? '', version: r.version, kind: r.kind, namespaced: true, force: false },
      flags,
    };
  });
}
