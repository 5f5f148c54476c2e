import type { PluginReplay } from '../plugin.js';
import { DEFAULT_MANIFESTS, DEFAULT_OUTPUT_DIR, type HelmPluginConfig } from './spec.js';

/**
 * What scaffolds the chart again from PROJECT's record: `scaffold manifests`, then the edit with the flags that differ
 * from their defaults.
 */
export function replayHelm(recorded: unknown): PluginReplay[] {
  const config = (typeof recorded === 'object' && recorded !== null ? recorded : {}) as HelmPluginConfig;
  const flags: Record<string, unknown> = {};
  if (config.manifests !== undefined && config.manifests !== DEFAULT_MANIFESTS) flags.manifests = config.manifests;
  if (config.output !== undefined && config.output !== DEFAULT_OUTPUT_DIR) flags.outputDir = config.output;
  // The chart is made from config/default, which needs the CRDs and roles `scaffold manifests` writes (kubebuilder's
  // edit runs make manifests first, too).
  return [{ command: 'manifests' }, { command: 'edit', flags }];
}
