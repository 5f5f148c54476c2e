#!/usr/bin/env node
// The quickstart: scaffold a sample operator with this checkout's CLI and generate its manifests, showing each step.
// Usage: node scripts/quickstart.js [directory]   (default: ./quickstart-operator, which must not exist yet)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const scaffold = fileURLToPath(new URL('../bin/scaffold.js', import.meta.url));
const dir = resolve(process.argv[2] ?? 'quickstart-operator');

function step(title, args) {
  console.log(`\n==> ${title}\n$ scaffold ${args.join(' ')}`);
  const result = spawnSync(process.execPath, [scaffold, ...args], { cwd: dir, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`\nquickstart failed at: ${title}`);
    process.exit(result.status ?? 1);
  }
}

if (existsSync(dir)) {
  console.error(`${dir} already exists; pass another directory: npm run quickstart -- <dir>`);
  process.exit(1);
}
mkdirSync(dir, { recursive: true });
console.log(`Scaffolding a sample operator in ${dir}`);
step('Initialize the project', ['init', '--domain', 'example.com', '--skip-install']);
step('Create a namespaced API with a controller', ['create', 'api', '--group', 'crew', '--version', 'v1', '--kind', 'Captain']);
step('Create a cluster-scoped API with a controller', ['create', 'api', '--group', 'crew', '--version', 'v1', '--kind', 'Admiral', '--namespaced=false']);
step('Generate CRDs and RBAC from the +kubebuilder markers', ['manifests']);
console.log('\n==> The generated CRD for Captain (config/crd/bases/crew.example.com_captains.yaml):\n');
console.log(readFileSync(resolve(dir, 'config/crd/bases/crew.example.com_captains.yaml'), 'utf8'));
console.log(`Done. Next, in ${dir}: npm install && npm test   (the controller tests run on a real kube-apiserver and etcd)`);
