import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { ScaffoldError } from '../errors.js';
import { mergePackageJson } from './package-json.js';
import {
  CUSTOM_LICENSE,
  boilerplateText,
  customHeaderProblem,
  fileHeader,
  licenses,
  ownerProblem,
  type License,
} from '../project/boilerplate.js';
import { initializedMarkers } from '../project/load.js';
import { checkDNS1123Label, checkDNS1123Subdomain, fnv32a, shardRingName } from '../project/names.js';
import type { ProjectDependencies } from './dependencies.js';
import { Plan, type IfExists } from './plan.js';
import { LAYOUT, stringifyProject, type ProjectConfig } from '../project/project.js';
import { render } from './render.js';

export interface InitOptions {
  domain: string;
  repo?: string;
  owner?: string;
  license: string;
  /**
   * A file whose content becomes hack/boilerplate.txt, the header of generated files, in place of --license
   * (kubebuilder's --license-file); PROJECT records the license as `custom`. Relative to the working directory.
   */
  licenseFile?: string;
  projectName?: string;
  multigroup: boolean;
  namespaced: boolean;
  /**
   * How the generated package.json depends on kubescaffold's packages, and the tarballs it names, if any: called once
   * the options and the directory have passed their checks, since vendoring packs tarballs.
   */
  dependencies: () => ProjectDependencies;
  cliVersion: string;
  /**
   * The plugin chain PROJECT's layout records, in order (default: kubescaffold's layout alone); it must hold
   * kubescaffold's layout. External plugins run by `init --plugins` are recorded here, as kubebuilder records them.
   */
  layout?: string[];
}

export interface InitResult {
  written: string[];
  warnings: string[];
  project: ProjectConfig;
}

// Each generated file: its template under templates/init, and what to do when it exists (kubebuilder's choices).
const initFiles: Array<{
  template: string;
  ifExists: IfExists;
  when?: (o: { namespaced: boolean; license: boolean }) => boolean;
  path?: string;
}> = [
  { template: 'package.json', ifExists: 'skip' },
  { template: 'tsconfig.json', ifExists: 'skip' },
  { template: 'eslint.config.js', ifExists: 'skip' },
  { template: 'vitest.config.ts', ifExists: 'skip' },
  { template: 'Makefile', ifExists: 'error' },
  { template: 'Dockerfile', ifExists: 'skip' },
  { template: '.dockerignore', ifExists: 'skip' },
  { template: '.gitignore', ifExists: 'skip' },
  { template: '.github/workflows/lint.yml', ifExists: 'skip' },
  { template: '.github/workflows/test.yml', ifExists: 'skip' },
  { template: '.github/workflows/test-e2e.yml', ifExists: 'skip' },
  { template: '.devcontainer/devcontainer.json', ifExists: 'skip' },
  { template: 'README.md', ifExists: 'skip' },
  // kubebuilder v4.11's guide for coding agents, with this CLI's commands
  { template: 'AGENTS.md', ifExists: 'skip' },
  { template: 'cmd/main.ts', ifExists: 'skip' },
  // the operator's own flags, which cmd/main.ts parses with the manager's
  { template: 'cmd/flags.ts', ifExists: 'skip' },
  { template: 'hack/boilerplate.txt', ifExists: 'skip', when: (o) => o.license },
  { template: 'hack/bundle.js', ifExists: 'skip' },
  { template: 'test/e2e/e2e.test.ts', ifExists: 'skip' },
  { template: 'test/envtest.setup.ts', ifExists: 'skip' },
  { template: 'config/default/kustomization.yaml', ifExists: 'error' },
  { template: 'config/default/metrics_service.yaml', ifExists: 'skip' },
  { template: 'config/default/manager_metrics_patch.yaml', ifExists: 'error' },
  { template: 'config/default/cert_metrics_manager_patch.yaml', ifExists: 'skip' },
  { template: 'config/default/manager_sharding_patch.yaml', ifExists: 'skip' },
  { template: 'config/manager/kustomization.yaml', ifExists: 'error' },
  { template: 'config/manager/manager.yaml', ifExists: 'skip' },
  { template: 'config/rbac/kustomization.yaml', ifExists: 'error' },
  { template: 'config/rbac/service_account.yaml', ifExists: 'skip' },
  { template: 'config/rbac/role.yaml', ifExists: 'overwrite', when: (o) => !o.namespaced },
  { template: 'config/rbac/role_binding.yaml', ifExists: 'overwrite', when: (o) => !o.namespaced },
  {
    template: 'config/rbac/namespaced_role.yaml',
    path: 'config/rbac/role.yaml',
    ifExists: 'overwrite',
    when: (o) => o.namespaced,
  },
  {
    template: 'config/rbac/namespaced_role_binding.yaml',
    path: 'config/rbac/role_binding.yaml',
    ifExists: 'overwrite',
    when: (o) => o.namespaced,
  },
  { template: 'config/rbac/leader_election_role.yaml', ifExists: 'skip' },
  { template: 'config/rbac/leader_election_role_binding.yaml', ifExists: 'skip' },
  { template: 'config/rbac/metrics_auth_role.yaml', ifExists: 'skip' },
  { template: 'config/rbac/metrics_auth_role_binding.yaml', ifExists: 'skip' },
  { template: 'config/rbac/metrics_reader_role.yaml', ifExists: 'skip' },
  { template: 'config/prometheus/kustomization.yaml', ifExists: 'skip' },
  { template: 'config/prometheus/monitor.yaml', ifExists: 'skip' },
  { template: 'config/prometheus/monitor_tls_patch.yaml', ifExists: 'skip' },
  { template: 'config/network-policy/kustomization.yaml', ifExists: 'skip' },
  { template: 'config/network-policy/allow-metrics-traffic.yaml', ifExists: 'skip' },
  { template: 'config/sharding/kustomization.yaml', ifExists: 'skip' },
  { template: 'config/sharding/pdb.yaml', ifExists: 'skip' },
];

/** The content of a --license-file, or a refusal naming the file and what is wrong. */
function readLicenseFile(path: string): string {
  const file = resolve(path);
  if (!existsSync(file) || !statSync(file).isFile())
    throw new ScaffoldError(`license file "${path}" does not exist; give the path of a file holding your header`);
  const text = readFileSync(file, 'utf8');
  const problem = customHeaderProblem(text);
  if (problem) throw new ScaffoldError(`license file "${path}" cannot be the header of generated files: ${problem}`);
  return text.trim();
}

/** Validates the options and the target directory, then writes the project; writes nothing if any check fails. */
export function scaffoldInit(root: string, options: InitOptions): InitResult {
  for (const marker of initializedMarkers) {
    if (existsSync(join(root, marker))) {
      const unfinished = existsSync(join(root, 'PROJECT')) && !existsSync(join(root, 'node_modules'));
      throw new ScaffoldError(
        `target directory is already initialized: found ${marker} in ${root}; run \`scaffold init\` in an empty directory` +
          (unfinished
            ? ' (if an earlier init stopped during its npm install, run `npm install` here to finish it)'
            : ''),
      );
    }
  }
  const customHeader = options.licenseFile === undefined ? undefined : readLicenseFile(options.licenseFile);
  if (customHeader === undefined && !licenses.includes(options.license as License)) {
    throw new ScaffoldError(
      `unknown license "${options.license}" given to --license; use one of: ${licenses.join(', ')}`,
    );
  }
  const domainProblem = checkDNS1123Subdomain(options.domain);
  if (domainProblem) throw new ScaffoldError(`--domain "${options.domain}" is invalid: ${domainProblem}`);
  const projectName = options.projectName ?? basename(root).toLowerCase();
  const nameProblem = checkDNS1123Label(projectName);
  if (nameProblem) {
    throw new ScaffoldError(
      `project name "${projectName}" is invalid: ${nameProblem}; pass a valid one with --project-name${options.projectName ? '' : ' (it defaults to the directory name)'}`,
    );
  }

  const badOwner = ownerProblem(options.owner);
  if (badOwner) throw new ScaffoldError(`invalid --owner: ${badOwner}`);
  if (options.layout && !options.layout.includes(LAYOUT))
    throw new ScaffoldError(`the plugin chain ${options.layout.join(', ')} leaves out kubescaffold's layout ${LAYOUT}`);
  const warnings: string[] = [];
  const others = readdirSync(root).filter((entry) => !entry.startsWith('.') || entry === '.github');
  if (others.length > 0)
    warnings.push(
      `The target directory is not empty (${others.slice(0, 5).join(', ')}${others.length > 5 ? ', ...' : ''}); existing files are kept.`,
    );

  const dependencies = options.dependencies();
  const repo = options.repo ?? projectName;
  const boilerplate = customHeader ?? boilerplateText(options.license as License, options.owner);
  const year = new Date().getFullYear();
  const data = {
    projectName,
    domain: options.domain,
    repo,
    namespaced: options.namespaced,
    multigroup: options.multigroup,
    packages: dependencies.specs,
    vendored: dependencies.vendored.length > 0,
    leaderElectionID: `${fnv32a(repo).toString(16).padStart(8, '0')}.${options.domain}`,
    shardRing: shardRingName(projectName),
    boilerplate: fileHeader(boilerplate, year),
    boilerplateText: boilerplate ?? '',
    license: customHeader === undefined ? options.license === 'apache2' : customHeader.trim() !== '',
    licenseText: boilerplate
      ? boilerplate
          .replace(/^\/\*\n?/, '')
          .replace(/\n?\*\/$/, '')
          .replaceAll('YEAR', String(year))
      : '',
  };

  const plan = new Plan(root);
  for (const file of initFiles) {
    if (file.when && !file.when({ namespaced: options.namespaced, license: boilerplate !== undefined })) continue;
    const rendered = render(`init/${file.template}`, data);
    const existing = file.template === 'package.json' ? plan.current('package.json') : undefined;
    if (existing === undefined) {
      plan.template(file.path ?? file.template, rendered, file.ifExists);
      continue;
    }
    const merged = mergePackageJson(existing, rendered);
    if ('conflicts' in merged) {
      plan.fail(
        `package.json cannot take what the project needs: ${merged.conflicts.join('; ')}; change or remove those keys (or the file) and run init again`,
      );
    } else {
      plan.edit('package.json', () => merged.text);
    }
  }
  for (const file of dependencies.vendored) plan.file(file.path, file.bytes, 'error');
  const project: ProjectConfig = {
    version: '3',
    domain: options.domain,
    repo,
    projectName,
    cliVersion: options.cliVersion,
    layout: options.layout ?? [LAYOUT],
    multigroup: options.multigroup,
    namespaced: options.namespaced,
    license: customHeader === undefined ? options.license : CUSTOM_LICENSE,
    owner: options.owner,
  };
  plan.template('PROJECT', stringifyProject(project), 'error');
  return { written: plan.commit(), warnings, project };
}
