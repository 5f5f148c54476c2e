import type { Command } from 'commander';
import {
  pluginFlagValues,
  pluginSpecs,
  resolvePlugins,
  shortKey,
  type PluginResult,
  type PluginSpec,
  type PluginSubcommand,
} from '../scaffold/plugins/registry.js';

/** Adds --plugins and every plugin's flags for this subcommand (a flag shared by two plugins is declared once). */
export function addPluginOptions(command: Command, subcommand: PluginSubcommand): Command {
  const usable = pluginSpecs.filter((s) => s.subcommands.includes(subcommand));
  if (usable.length === 0) return command;
  command.option(
    '--plugins <keys>',
    `comma-separated optional plugins: ${usable.map((s) => shortKey(s.key)).join(', ')}`,
  );
  const declared = new Set(command.options.map((o) => o.attributeName()));
  for (const spec of usable) {
    for (const flag of spec.flags[subcommand] ?? []) {
      if (declared.has(flag.name)) continue;
      declared.add(flag.name);
      const owners = usable
        .filter((s) => (s.flags[subcommand] ?? []).some((f) => f.name === flag.name))
        .map((s) => shortKey(s.key));
      command.option(flag.flags, `${flag.description} (with --plugins=${owners.join(' or ')})`);
    }
  }
  return command;
}

/** The selected plugins with the flag values each was given; empty when --plugins was not given. */
export function selectedPlugins(
  options: Record<string, unknown>,
  subcommand: PluginSubcommand,
): Map<PluginSpec, Record<string, unknown>> {
  const value = typeof options.plugins === 'string' ? options.plugins : '';
  const selected = value === '' ? [] : resolvePlugins(value, subcommand);
  return pluginFlagValues(options, subcommand, selected);
}

/** Runs the selected plugins' edit, one after the other, and prints what each wrote. */
export async function runEditPlugins(
  root: string,
  selected: Map<PluginSpec, Record<string, unknown>>,
): Promise<PluginResult> {
  const total: PluginResult = { written: [], notes: [] };
  for (const [spec, flags] of selected) {
    const plugin = await spec.load();
    if (!plugin.edit) continue;
    const result = plugin.edit(root, flags);
    total.written.push(...result.written);
    total.notes.push(...result.notes);
  }
  return total;
}
