import type { Command } from 'commander';
import { commandTree } from './tree.js';

// Examples shown at the end of each command's --help, as kubebuilder's help has them. Inside a project (which has
// kubescaffold installed) `npx scaffold` runs its CLI; outside one, `npx kubescaffold`.
const EXAMPLES: Record<string, string[]> = {
  '': [
    'mkdir my-operator && cd my-operator',
    'npx kubescaffold init --domain example.com',
    'npx scaffold create api --group crew --version v1 --kind Captain',
    'npx scaffold manifests && npm test',
  ],
  init: [
    'npx kubescaffold init --domain example.com',
    'npx kubescaffold init --domain example.com --owner "The Crew Authors" --multigroup',
    'npx kubescaffold init --domain example.com --namespaced --skip-install',
  ],
  'create api': [
    'npx scaffold create api --group crew --version v1 --kind Captain',
    'npx scaffold create api --group crew --version v1 --kind Admiral --namespaced=false',
    'npx scaffold create api --group apps --version v1 --kind Deployment --resource=false --controller=true',
    'npx scaffold create api --group cache --version v1alpha1 --kind Memcached --plugins=deploy-image/v1-alpha --image=memcached:1.6.26-alpine --image-container-command="memcached,--memory-limit=64,-o,modern,-v" --image-container-port=11211 --run-as-user=1001',
  ],
  'create webhook': [
    'npx scaffold create webhook --group crew --version v1 --kind Captain --defaulting --programmatic-validation',
    'npx scaffold create webhook --group crew --version v1 --kind Captain --conversion --spoke v2',
  ],
  create: [
    'npx scaffold create api --group crew --version v1 --kind Captain',
    'npx scaffold create webhook --group crew --version v1 --kind Captain --defaulting',
  ],
  edit: [
    'npx scaffold edit --multigroup',
    'npx scaffold edit --namespaced',
    'npx scaffold edit --license apache2 --owner "The Crew Authors"',
    'npx scaffold edit --plugins=grafana/v1-alpha',
    'npx scaffold edit --plugins=helm/v2-alpha',
    'npx scaffold edit --plugins=helm/v2-alpha --manifests=install.yaml --output-dir=charts --force',
  ],
  alpha: ['npx scaffold alpha generate --output-dir ../my-operator-upgraded', 'npx scaffold alpha update'],
  'alpha generate': [
    'npx scaffold alpha generate',
    'npx scaffold alpha generate --input-dir ./my-operator --output-dir ./my-operator-upgraded',
  ],
  'alpha update': [
    'npx scaffold alpha update',
    'npx scaffold alpha update --from-version 0.1.0 --to-version 0.2.0 --force',
    'npx scaffold alpha update --force --show-commits --output-branch my-update-branch',
    'npx scaffold alpha update --force --restore-path .github/workflows --push',
  ],
  manifests: [
    'npx scaffold manifests',
    'npx scaffold manifests --watch',
    'npx scaffold manifests --paths ./api/... --max-desc-len 0',
  ],
  generate: ['npx scaffold generate'],
  import: ['npx scaffold import crd ./crds/certificates.yaml'],
  'import crd': [
    'npx scaffold import crd ./crds/certificates.yaml',
    'npx scaffold import crd https://example.com/releases/v1.0.0/crds.yaml --output-dir external',
    'npx scaffold import crd certificates.cert-manager.io --kubeconfig ~/.kube/dev',
  ],
  build: ['npx scaffold build config/default', 'npx scaffold build config/crd > crds.yaml'],
  install: ['npx scaffold install', 'npx scaffold install --kubeconfig ~/.kube/dev --dry-run=server'],
  uninstall: ['npx scaffold uninstall --ignore-not-found'],
  deploy: ['npx scaffold deploy --img registry.example.com/crew-operator:v0.1.0'],
  undeploy: ['npx scaffold undeploy'],
  'build-installer': ['npx scaffold build-installer --img registry.example.com/crew-operator:v0.1.0'],
  run: ['npx scaffold run', 'npx scaffold run -- --leader-elect=false', 'npx scaffold run --as-deployed'],
  envtest: [
    'npx scaffold envtest use 1.37 -p path',
    'npx scaffold envtest list',
    'npx scaffold envtest start --kubeconfig-out /tmp/envtest.kubeconfig',
  ],
  'envtest use': [
    'npx scaffold envtest use',
    'npx scaffold envtest use 1.36 -p env',
    'npx scaffold envtest use latest --installed-only',
  ],
  'envtest list': ['npx scaffold envtest list', 'npx scaffold envtest list 1.37 -i'],
  'envtest start': [
    'npx scaffold envtest start --kubeconfig-out /tmp/envtest.kubeconfig',
    'npx scaffold envtest start --background --kubeconfig-out bin/e2e.kubeconfig',
    'npx scaffold envtest start --apiserver-arg feature-gates=ShardedListAndWatch=true --kubeconfig-out /tmp/envtest.kubeconfig',
  ],
  'envtest stop': ['npx scaffold envtest stop --kubeconfig-out bin/e2e.kubeconfig'],
  version: ['npx scaffold version'],
  completion: [
    'source <(npx scaffold completion bash)',
    'npx scaffold completion fish > ~/.config/fish/completions/scaffold.fish',
  ],
};

/** Adds the examples above to the help of `program` and of every command below it that has some. */
export function addExamples(program: Command): void {
  for (const [path, cmd] of commandTree(program)) {
    const examples = EXAMPLES[path];
    if (examples) cmd.addHelpText('after', `\nExamples:\n${examples.map((e) => `  $ ${e}`).join('\n')}`);
  }
}

/** The examples of the command at `path` ('create api'; '' for the program), as --help shows them. */
export function examplesFor(path: string): readonly string[] {
  return EXAMPLES[path] ?? [];
}

/** The command paths that have examples (for the test that every command has some). */
export const commandsWithExamples: readonly string[] = Object.keys(EXAMPLES);
