import { cpSync, existsSync, readFileSync, readdirSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { resolveInProject } from '../../files/confine.js';
import { ScaffoldError, isUserError } from '../../errors.js';
import { CUSTOM_LICENSE, boilerplateText, customHeaderProblem, type License } from '../../project/boilerplate.js';
import { parseProject, stringifyProject, type ProjectConfig } from '../../project/project.js';
import { scaffoldCreateAPI } from '../api.js';
import { loadProject } from '../../project/load.js';
import { scaffoldInit } from '../init.js';
import { runManifests } from '../../generate/command.js';
import { pluginSpecs, type PluginReplay, type PluginSpec } from '../plugins/registry.js';
import { scaffoldCreateWebhook } from '../webhook.js';
import { commandLine, replaySteps, type InitExtras, type ReplayStep } from './replay.js';
import {
  KEPT_IN_PLACE,
  backupPath,
  makeStagingDir,
  moveEntries,
  removeEmptyDir,
  removeStagingDir,
  replaceableEntries,
} from './tree-swap.js';

export interface GenerateOptions extends InitExtras {
  /** The project whose PROJECT file is read. */
  inputDir: string;
  /** Where the new scaffold goes; the input directory when undefined (its files are moved to a backup first). */
  outputDir?: string;
  /** Allows a non-empty output directory other than the input: its contents are moved to a backup first. */
  force: boolean;
  specs?: readonly PluginSpec[];
  /** Told each command before it runs. */
  log?: (line: string) => void;
  now?: () => Date;
}

export interface GenerateResult {
  inputDir: string;
  outputDir: string;
  inPlace: boolean;
  /** The commands that were run, as the user would type them. */
  commands: string[];
  /** Where the output directory's previous contents were moved, when it had any. */
  backupDir?: string;
  /** Entries of the output directory left where they were (.git, node_modules). */
  keptInPlace: string[];
  /** Where the user's previous files now are: the backup, or the input directory when it was not replaced. */
  previousDir: string;
  /** Things the user should look at that the new scaffold could not carry over. */
  notes: string[];
  /** The user's files the new tree holds as they were in the project (cmd/flags.ts, the operator's flags). */
  keptFiles: string[];
}

/**
 * `scaffold alpha generate`: scaffolds the project that PROJECT describes again with this version of kubescaffold.
 * The new tree is built in a directory next to the output first, so that a refusal or a failed command changes
 * nothing; only then are the output directory's previous contents moved to a backup (never deleted) and the new tree
 * moved in.
 */
export async function generateFromProject(options: GenerateOptions): Promise<GenerateResult> {
  const inputDir = resolve(options.inputDir);
  const config = loadProject(inputDir);
  const projectText = readFileSync(join(inputDir, 'PROJECT'), 'utf8');
  const outputDir = resolve(options.outputDir ?? inputDir);
  const inPlace = sameDirectory(inputDir, outputDir);
  const existing = replaceableEntries(outputDir);
  if (!inPlace && existing.length > 0 && !options.force) {
    const shown = existing.slice(0, 5).join(', ') + (existing.length > 5 ? ', ...' : '');
    throw new ScaffoldError(
      `--output-dir ${outputDir} is not empty (${shown}); give a new or empty directory, or pass --force to move its contents to a backup next to it first`,
    );
  }
  const steps = replaySteps(
    config,
    {
      dependencies: options.dependencies,
      cliVersion: options.cliVersion,
      licenseFile: carriedHeader(inputDir, config),
    },
    options.specs ?? pluginSpecs,
  );

  const staging = makeStagingDir(outputDir);
  let flags: Carried;
  try {
    for (const step of steps) await runStep(staging, step, options);
    flags = carryOperatorFlags(inputDir, staging);
  } catch (err) {
    removeStagingDir(staging);
    throw err;
  }

  let backupDir: string | undefined;
  try {
    if (existing.length > 0) {
      backupDir = backupPath(outputDir, (options.now ?? (() => new Date()))());
      moveEntries(outputDir, backupDir, existing);
    }
    try {
      moveEntries(staging, outputDir, readdirSync(staging));
    } catch (err) {
      if (backupDir !== undefined) {
        moveEntries(backupDir, outputDir, existing);
        removeEmptyDir(backupDir);
      }
      throw err;
    }
  } finally {
    removeStagingDir(staging);
  }

  const previousDir = backupDir ?? inputDir;
  return {
    inputDir,
    outputDir,
    inPlace,
    commands: steps.map((s) => commandLine(s.argv)),
    backupDir,
    keptInPlace: existsSync(outputDir) ? readdirSync(outputDir).filter((e) => KEPT_IN_PLACE.includes(e)) : [],
    previousDir,
    notes: [...differences(projectText, previousDir, outputDir), ...flags.notes],
    keptFiles: flags.kept,
  };
}

async function runStep(root: string, step: ReplayStep, options: GenerateOptions): Promise<void> {
  options.log?.(`$ ${commandLine(step.argv)}`);
  try {
    if (step.run === 'init') scaffoldInit(root, step.options);
    else if (step.run === 'create api') {
      if (step.options.externalApiPath !== undefined)
        carryImportedTypes(resolve(options.inputDir), root, step.options.externalApiPath);
      scaffoldCreateAPI(root, step.options);
    } else if (step.run === 'create webhook') scaffoldCreateWebhook(root, step.options);
    else await runPluginStep(root, step.spec, step.replay, options);
  } catch (err) {
    if (!isUserError(err)) throw err;
    throw new ScaffoldError(
      `\`${commandLine(step.argv)}\` failed: ${err.message}\nNothing was changed: the project cannot be scaffolded again from its PROJECT file as it is`,
      { cause: err },
    );
  }
}

/**
 * The imported types an external API's controller uses are the user's files, not scaffolded ones: they are copied
 * into the new tree (the whole import folder, the one with its own package.json) before its create api runs.
 */
function carryImportedTypes(inputDir: string, staging: string, path: string): void {
  const from = resolveInProject(inputDir, path, 'read', 'allow');
  if (!from.startsWith(inputDir + sep) || !existsSync(from) || !statSync(from).isDirectory()) return; // a package
  let top = from;
  for (let d = from; d.startsWith(inputDir + sep); d = dirname(d)) if (existsSync(join(d, 'package.json'))) top = d;
  const target = join(staging, relative(inputDir, top));
  if (!existsSync(target)) cpSync(top, target, { recursive: true });
}

/** The operator's own flags: init writes the file with none, and the user declares theirs in it (cmd/main.ts parses them). */
const OPERATOR_FLAGS_FILE = 'cmd/flags.ts';

/** Files of the user's project put into the new tree as they were, and what to look at in them. */
interface Carried {
  kept: string[];
  notes: string[];
}

/**
 * cmd/flags.ts is the user's, as the imported types are: when the project has one and the new scaffold writes one too,
 * the user's replaces the new (empty) one, so that the operator's flags are kept. A note says when the kept file does
 * not export the `operatorFlags` that the new cmd/main.ts imports.
 */
function carryOperatorFlags(inputDir: string, staging: string): Carried {
  const target = join(staging, OPERATOR_FLAGS_FILE);
  if (!existsSync(target)) return { kept: [], notes: [] };
  const from = resolveInProject(inputDir, OPERATOR_FLAGS_FILE, 'read');
  if (!existsSync(from) || !statSync(from).isFile()) return { kept: [], notes: [] };
  const text = readFileSync(from, 'utf8');
  writeFileSync(target, text);
  const notes = /^export const operatorFlags\b/m.test(text)
    ? []
    : [
        `${OPERATOR_FLAGS_FILE}, kept from your project, does not export \`operatorFlags\`, which the new cmd/main.ts imports: export your flags' definitions by that name, or change the import in cmd/main.ts`,
      ];
  return { kept: [OPERATOR_FLAGS_FILE], notes };
}

/** Calls what a plugin's replay step names, in `root`: the plugin's own edit or createAPI, or the manifests generator. */
async function runPluginStep(
  root: string,
  spec: PluginSpec,
  replay: PluginReplay,
  options: GenerateOptions,
): Promise<void> {
  if (replay.command === 'manifests') {
    await runManifests({ root, generatorVersion: options.cliVersion });
    return;
  }
  const plugin = await spec.load();
  const result =
    replay.command === 'edit'
      ? plugin.edit?.(root, replay.flags)
      : plugin.createAPI?.(root, replay.request, replay.flags);
  if (result === undefined)
    throw new Error(`plugin ${spec.key} replays \`${replay.command}\`, which it does not implement`);
  for (const note of result.notes) options.log?.(note);
}

/** Whether two paths name the same directory (through symlinks too, when both exist). */
function sameDirectory(a: string, b: string): boolean {
  if (a === b) return true;
  return existsSync(a) && existsSync(b) && realpathSync(a) === realpathSync(b);
}

/** What the new scaffold does not reproduce of the old files that init and create alone write. */
function differences(projectText: string, previousDir: string, outputDir: string): string[] {
  const notes: string[] = [];
  const newProject = readFileSync(join(outputDir, 'PROJECT'), 'utf8');
  const before = parseProject(projectText);
  const after = parseProject(newProject);
  if (
    typeof before === 'string' ||
    typeof after === 'string' ||
    stringifyProject({ ...before, cliVersion: undefined }) !== stringifyProject({ ...after, cliVersion: undefined })
  ) {
    notes.push(
      `PROJECT differs from your previous one in more than cliVersion (settings kubescaffold does not scaffold are not carried over): compare ${join(previousDir, 'PROJECT')} with ${join(outputDir, 'PROJECT')}`,
    );
  }
  const boilerplate = join('hack', 'boilerplate.txt');
  const oldHeader = readIfExists(join(previousDir, boilerplate));
  if (oldHeader !== undefined && oldHeader.trim() !== readIfExists(join(outputDir, boilerplate))?.trim()) {
    // only a header that cannot be one comment block is left behind (see carriedHeader)
    notes.push(
      `${boilerplate} was written from PROJECT's license and owner, and differs from yours (${join(previousDir, boilerplate)}), which is not one /* */ comment block; new files carry the new header`,
    );
  }
  return notes;
}

/**
 * The previous project's hack/boilerplate.txt when the new scaffold keeps it as the header (init --license-file), as
 * kubebuilder's alpha generate keeps its boilerplate: a custom header, or one the user edited after init. Refuses a
 * custom license whose file is gone.
 */
function carriedHeader(inputDir: string, config: ProjectConfig): string | undefined {
  const path = join(inputDir, 'hack', 'boilerplate.txt');
  const text = readIfExists(path);
  if (config.license === CUSTOM_LICENSE) {
    if (text !== undefined) return path;
    throw new ScaffoldError(
      `PROJECT records a custom license header (init --license-file), but ${path} is missing; restore it, or set PROJECT's license to apache2, copyright or none`,
    );
  }
  if (text === undefined || customHeaderProblem(text) !== undefined) return undefined;
  const made = boilerplateText((config.license ?? 'apache2') as License, config.owner) ?? '';
  return text.trim() === made.trim() ? undefined : path;
}

function readIfExists(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}
