#!/usr/bin/env node
// The quickstart: from nothing to a running operator on a local control plane, showing each step.
//   1. scaffold a sample operator (init + create api) with this checkout's CLI, and install its dependencies
//   2. give its reconciler a few lines of logic (report an Available condition), as a user would
//   3. generate its CRDs and RBAC from the markers
//   4. start a local kube-apiserver + etcd (kubescaffold/envtest), install the CRDs, run the operator
//   5. create the sample object, wait for its reconciled status, print it, and stop everything
// Usage: node scripts/quickstart.js [directory]   (default: ./quickstart-operator, which must not exist yet)
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const scaffold = join(repoRoot, 'bin', 'scaffold.js');
const dir = resolve(process.argv[2] ?? 'quickstart-operator');
const startedAt = Date.now();
let stepNumber = 0;

function title(text) {
  stepNumber += 1;
  console.log(`\n==> [${stepNumber}] ${text}  (+${((Date.now() - startedAt) / 1000).toFixed(1)}s)`);
}

function run(command, args, { quiet = false } = {}) {
  console.log(
    `$ ${command === process.execPath ? 'scaffold' : command} ${(command === process.execPath ? args.slice(1) : args).join(' ')}`,
  );
  const result = spawnSync(command, args, {
    cwd: dir,
    stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    if (quiet) process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
    throw new Error(`step ${stepNumber} failed: ${command} exited with ${result.status}`);
  }
}
const cli = (...args) => run(process.execPath, [scaffold, ...args]);

// What a user would write in reconcile(): report that the object was seen, on its status.
const reconcileLogic = `    ctx.log.info('reconciling Captain', { generation: captain.metadata.generation });

    // Report that this generation was reconciled, as a condition on the status subresource.
    const conditions = [...(captain.status?.conditions ?? [])];
    const changed = setStatusCondition(conditions, {
      type: 'Available',
      status: 'True',
      reason: 'Reconciled',
      message: \`Captain \${captain.metadata.name} is reconciled\`,
      observedGeneration: captain.metadata.generation,
    });
    if (changed) await this.client.status().update(CaptainResource, { ...captain, status: { ...captain.status, conditions } });
`;

async function main() {
  if (existsSync(dir)) throw new Error(`${dir} already exists; pass another directory: npm run quickstart -- <dir>`);
  const { TestEnvironment, ensureBinaries, describeSource } = await import('@kubescaffold/envtest');
  const { newClient, defineResource } = await import('@kubescaffold/runtime');
  let binaries;
  try {
    // The same path as `scaffold envtest use`: the cache, else a download from the envtest release index (seconds),
    // else, with Go installed, a build from source (6–11 minutes; asked first on a terminal).
    binaries = await ensureBinaries({
      progress: (line) => console.log(`  ${line}`),
      terminal: process.stdout.isTTY ? process.stdout : undefined,
    });
  } catch (err) {
    throw new Error(
      `the local control plane needs kube-apiserver and etcd:\n${err instanceof Error ? err.message : err}`,
    );
  }
  console.log(
    `kube-apiserver and etcd ${binaries.version} from ${describeSource(binaries.source)}: ${binaries.dir ?? binaries.kubeApiserver}`,
  );

  title(`Scaffold a sample operator in ${dir}`);
  mkdirSync(dir, { recursive: true });
  cli('init', '--domain', 'example.com');
  cli('create', 'api', '--group', 'crew', '--version', 'v1', '--kind', 'Captain');

  title('Implement the reconciler: report an Available condition (internal/controller/captain_controller.ts)');
  const controllerFile = join(dir, 'internal', 'controller', 'captain_controller.ts');
  let controller = readFileSync(controllerFile, 'utf8');
  controller = controller
    .replace(
      "} from '@kubescaffold/runtime';\n",
      "} from '@kubescaffold/runtime';\nimport { setStatusCondition } from '@kubescaffold/runtime/client';\n",
    )
    .replace(/ {4}ctx\.log\.info\('reconciling Captain'.*\n/, reconcileLogic);
  writeFileSync(controllerFile, controller);
  console.log(reconcileLogic);

  title('Generate the CRD and RBAC from the +kubebuilder markers');
  cli('manifests');
  console.log('config/crd/bases:', 'crew.example.com_captains.yaml;', 'config/rbac/role.yaml');

  title('Start a local control plane (kube-apiserver + etcd)');
  const env = await TestEnvironment.start({
    binaryAssetsDirectory: ['cache', 'download', 'build'].includes(binaries.source) ? binaries.dir : undefined,
  });
  const kubeconfig = join(dir, 'quickstart.kubeconfig');
  writeFileSync(kubeconfig, env.kubeconfigYaml());
  console.log(`API server ${env.server}; kubeconfig written to ${kubeconfig}`);
  let operator;
  try {
    title('Install the CRDs');
    cli('install', '--kubeconfig', kubeconfig);

    title('Build and run the operator');
    console.log(`$ scaffold run --kubeconfig ${kubeconfig}`);
    operator = spawn(
      process.execPath,
      [scaffold, 'run', '--kubeconfig', kubeconfig, '--', '--health-probe-bind-address=0'],
      { cwd: dir, stdio: ['ignore', 'inherit', 'inherit'] },
    );

    title('Create the sample Captain (config/samples/crew_v1_captain.yaml)');
    const sample = parse(readFileSync(join(dir, 'config', 'samples', 'crew_v1_captain.yaml'), 'utf8'));
    const captains = defineResource({
      group: 'crew.example.com',
      version: 'v1',
      kind: 'Captain',
      plural: 'captains',
      namespaced: true,
    });
    const client = newClient(env.kubeConfig);
    await client.create(captains, { ...sample, metadata: { ...sample.metadata, namespace: 'default' } });

    // The operator builds and starts in the background meanwhile, so its build output shows up under this step.
    title('Wait for the operator to finish building, start and reconcile it');
    const deadline = Date.now() + 120_000;
    let captain;
    for (;;) {
      if (operator.exitCode !== null) throw new Error(`the operator exited with ${operator.exitCode}`);
      captain = await client.get(captains, { namespace: 'default', name: sample.metadata.name });
      if (captain.status?.conditions?.some((c) => c.type === 'Available' && c.status === 'True')) break;
      if (Date.now() > deadline) throw new Error('the sample was not reconciled within 120 s');
      await new Promise((r) => setTimeout(r, 250));
    }
    console.log(`\nThe reconciled status of ${captain.metadata.namespace}/${captain.metadata.name}:\n`);
    console.log(stringify({ status: captain.status }));
  } finally {
    title('Stop the operator and the control plane');
    if (operator && operator.exitCode === null) {
      operator.kill('SIGINT');
      await once(operator, 'exit');
    }
    await env.stop();
  }
  console.log(
    `\nDone in ${((Date.now() - startedAt) / 1000).toFixed(0)} s. The project is in ${dir}: npm test runs its controller tests;`,
  );
  console.log(
    '`npx scaffold envtest start` (in the project) runs a local control plane for `npx scaffold install` and `npx scaffold run`.',
  );
}

main().catch((err) => {
  console.error(`\nquickstart failed: ${err instanceof Error ? err.message : err}`);
  process.exitCode = 1;
});
