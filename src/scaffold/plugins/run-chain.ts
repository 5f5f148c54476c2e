import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ScaffoldError, isUserError } from '../../errors.js';
import { readUtf8File } from '../../files/utf8.js';
import { loadProject } from '../../project/load.js';
import { parseProject } from '../../project/project.js';
import { snapshotProject } from '../snapshot.js';
import type { ChainStep } from './chain.js';
import { runExternalPlugin, type ScaffoldCommand } from './external/index.js';
import { LAYOUT_PLUGIN_KEY, shortKey, type PluginSpec } from './registry.js';

/** What one plugin of a chain did. */
export interface StepResult {
  written: string[];
  notes: string[];
  warnings: string[];
}

/** One plugin's result, with the name to show it under. */
export interface ChainResult {
  step: ChainStep;
  /** The plugin's key, short for a built-in one (typescript/v1 for the layout). */
  name: string;
  result: StepResult;
}

/** How the command runs the plugins it builds in; the external ones are run here. */
export interface ChainHandlers {
  /** kubescaffold's own scaffold for the subcommand. */
  layout(): StepResult | Promise<StepResult>;
  /** A built-in optional plugin. */
  builtin(spec: PluginSpec): StepResult | Promise<StepResult>;
}

/** What the external plugins of a chain are sent besides the project's files. */
export interface ChainRequest {
  command: ScaffoldCommand;
  /** The command line's flags, as pluginArgs gives them. */
  args: string[];
  /** PROJECT as a plugin sees it while there is none on disk (init, before the layout ran). */
  pendingConfig?: Record<string, unknown>;
}

/**
 * Runs a chain's plugins one after the other, each on what the ones before it wrote. A chain of several plugins is
 * all or nothing: when one fails, the project is put back as it was before the first (each plugin on its own writes
 * all or nothing already). Returns each plugin's result, in order.
 */
export async function runChain(
  root: string,
  steps: readonly ChainStep[],
  handlers: ChainHandlers,
  request: ChainRequest,
): Promise<ChainResult[]> {
  const snapshot = steps.length > 1 ? snapshotProject(root) : undefined;
  const results: ChainResult[] = [];
  for (const step of steps) {
    const name =
      step.kind === 'layout'
        ? shortKey(LAYOUT_PLUGIN_KEY)
        : step.kind === 'builtin'
          ? shortKey(step.spec.key)
          : step.plugin.key;
    try {
      let result: StepResult;
      if (step.kind === 'layout') result = await handlers.layout();
      else if (step.kind === 'builtin') result = await handlers.builtin(step.spec);
      else {
        const run = runExternalPlugin(root, step.plugin, {
          command: request.command,
          args: request.args,
          config: projectForPlugin(root, request),
        });
        result = { written: run.written, notes: [], warnings: run.warnings };
      }
      results.push({ step, name, result });
    } catch (err) {
      if (!isUserError(err)) {
        snapshot?.restore();
        throw err;
      }
      const before = results.filter((r) => r.result.written.length > 0).map((r) => r.name);
      if (before.length > 0) {
        const unrestored = snapshot!.restore();
        err.message +=
          unrestored.length > 0
            ? `\nthe files that ${before.join(' and ')} wrote before it were put back as they were, except ${unrestored.join(', ')}, which changed and was too large to keep a copy of`
            : `\nnothing was changed: the files that ${before.join(' and ')} wrote before it were put back as they were`;
      } else if (step.kind === 'external') err.message += '\nnothing was changed';
      throw err;
    }
  }
  return results;
}

/** PROJECT as a JSON object, for a plugin's request. */
function projectForPlugin(root: string, request: ChainRequest): Record<string, unknown> {
  const path = join(root, 'PROJECT');
  if (!existsSync(path) && request.pendingConfig) return request.pendingConfig;
  const parsed = existsSync(path) ? parseProject(readUtf8File(path, 'PROJECT')) : loadProject(root);
  if (typeof parsed === 'string') throw new ScaffoldError(`${path}: ${parsed}`);
  return { ...parsed };
}
