/**
 * The control plane a project's envtest tests share: test/envtest.setup.ts (a vitest globalSetup that starts one for
 * the whole run) and its entry in vitest.config.ts. `init` writes both; `create api` adds them to a project scaffolded
 * before they existed, whose new controller test would otherwise find no control plane.
 */
import type { Plan } from './plan.js';
import { render } from './render.js';

/** The globalSetup file, project-relative. */
export const ENVTEST_SETUP_FILE = 'test/envtest.setup.ts';

/** Plans the setup file (kept if it exists) and its entry in vitest.config.ts (left alone if it names a globalSetup). */
export function planSharedTestEnvironment(plan: Plan, boilerplate: string): void {
  plan.template(ENVTEST_SETUP_FILE, render(`init/${ENVTEST_SETUP_FILE}`, { boilerplate }), 'skip');
  plan.edit('vitest.config.ts', withEnvtestGlobalSetup, { ifMissing: 'ignore' });
}

/**
 * vitest.config.ts with the setup named in its `unit` project, as earlier versions of `init` wrote that project. A
 * config that names a globalSetup already, or whose unit project is written another way, is returned as it is: the
 * test then says what to add (sharedTestEnvironment's error).
 */
export function withEnvtestGlobalSetup(config: string): string {
  if (config.includes('globalSetup')) return config;
  return config.replace(
    /(\{\s*extends: true,\s*test: \{\s*name: 'unit',\s*include: \[[^\]]*\])(\s*\})/,
    `$1, globalSetup: ['${ENVTEST_SETUP_FILE}']$2`,
  );
}
