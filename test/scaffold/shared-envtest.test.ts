/**
 * The control plane a project's envtest tests share (test/envtest.setup.ts, a vitest globalSetup): init writes it and
 * names it in vitest.config.ts; create api adds both to a project scaffolded before they existed, and leaves a
 * user's own setup alone.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { scaffoldCreateAPI } from '../../src/scaffold/api.js';
import { withEnvtestGlobalSetup } from '../../src/scaffold/test-setup.js';
import { initProject, tempProjectDir } from './helpers.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function newProject(): string {
  const { root, cleanup } = tempProjectDir();
  cleanups.push(cleanup);
  initProject(root);
  return root;
}

const captain = { group: 'crew', version: 'v1', kind: 'Captain', namespaced: true, force: false };
const read = (root: string, path: string) => readFileSync(join(root, path), 'utf8');

// The unit project as init wrote it before the shared control plane.
const OLD_VITEST_CONFIG = `import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      { extends: true, test: { name: 'unit', include: ['internal/**/*.test.ts', 'api/**/*.test.ts'] } },
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'] } },
    ],
  },
});
`;

describe('the shared envtest control plane in the scaffold', () => {
  it("init writes test/envtest.setup.ts and names it as the unit project's globalSetup only", () => {
    const root = newProject();
    const setup = read(root, 'test/envtest.setup.ts');
    expect(setup).toContain("startSharedTestEnvironment({ crdDirectoryPaths: ['config/crd/bases'] }");
    expect(setup).toContain("project.provide('envtest', shared)");
    const config = read(root, 'vitest.config.ts');
    expect(config.match(/globalSetup: \['test\/envtest\.setup\.ts'\]/g)).toHaveLength(1);
    // the e2e project runs against $KUBECONFIG's cluster, not this control plane
    expect(config.indexOf('globalSetup')).toBeLessThan(config.indexOf("name: 'e2e'"));
    expect(config.indexOf('globalSetup')).toBeGreaterThan(config.indexOf("name: 'unit'"));
  });

  it("create api writes a controller test that uses the shared control plane in a namespace of the file's own", () => {
    const root = newProject();
    scaffoldCreateAPI(root, { ...captain, resource: true, controller: true });
    const test = read(root, 'internal/controller/captain_controller.test.ts');
    expect(test).toContain("sharedTestEnvironment(inject('envtest'))");
    expect(test).toContain("namespace = await createTestNamespace(client, 'captain');");
    expect(test).not.toContain('TestEnvironment.start');
  });

  it('create api adds the setup and its globalSetup entry to a project scaffolded before them', () => {
    const root = newProject();
    rmSync(join(root, 'test/envtest.setup.ts'));
    writeFileSync(join(root, 'vitest.config.ts'), OLD_VITEST_CONFIG);
    const { written } = scaffoldCreateAPI(root, { ...captain, resource: true, controller: true });
    expect(written).toEqual(expect.arrayContaining(['test/envtest.setup.ts', 'vitest.config.ts']));
    expect(read(root, 'vitest.config.ts')).toBe(
      OLD_VITEST_CONFIG.replace(
        "'api/**/*.test.ts'] } },",
        "'api/**/*.test.ts'], globalSetup: ['test/envtest.setup.ts'] } },",
      ),
    );
    expect(read(root, 'test/envtest.setup.ts')).toContain('startSharedTestEnvironment');
  });

  it('create api keeps a setup file and a globalSetup the user has', () => {
    const root = newProject();
    const ownSetup = 'export default function setup(): void {}\n';
    const ownConfig = OLD_VITEST_CONFIG.replace("name: 'unit',", "name: 'unit', globalSetup: ['test/mine.ts'],");
    writeFileSync(join(root, 'test/envtest.setup.ts'), ownSetup);
    writeFileSync(join(root, 'vitest.config.ts'), ownConfig);
    const { written } = scaffoldCreateAPI(root, { ...captain, resource: true, controller: true });
    expect(written).not.toContain('vitest.config.ts');
    expect(written).not.toContain('test/envtest.setup.ts');
    expect(read(root, 'vitest.config.ts')).toBe(ownConfig);
    expect(read(root, 'test/envtest.setup.ts')).toBe(ownSetup);
  });

  it('leaves a vitest.config.ts whose unit project it does not recognise as it is', () => {
    const config = "export default { test: { include: ['**/*.test.ts'] } };\n";
    expect(withEnvtestGlobalSetup(config)).toBe(config);
  });
});
