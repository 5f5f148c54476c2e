// The kubescaffold book: docs/ as a VitePress site (`npm run docs`, written to docs/.vitepress/dist).
// VitePress because it is the Vite/Vue project's own, well-kept static site generator for Markdown: the pages stay
// plain Markdown that GitHub renders too (relative .md links work in both), and it fails the build on a dead link.
import { existsSync, readFileSync } from 'node:fs';
import { defineConfig, type DefaultTheme } from 'vitepress';
import { githubSlug } from '../../scripts/lib/docs-anchors.js';

const docsRoot = new URL('../', import.meta.url);
const { version, repository } = JSON.parse(readFileSync(new URL('../package.json', docsRoot), 'utf8')) as {
  version: string;
  repository: { url: string };
};
// The repository's web address, from package.json's repository (git+https://github.com/owner/name.git).
const repositoryUrl = repository.url.replace(/^git\+/, '').replace(/\.git$/, '');

// Pages written in parallel with the rest of the book (the tutorial, the TypeDoc API reference) are listed once they
// exist, so the sidebar never links a page that is not there.
const exists = (page: string): boolean => existsSync(new URL(page, docsRoot));
function items(entries: Array<[text: string, page: string]>): DefaultTheme.SidebarItem[] {
  return entries.filter(([, page]) => exists(page)).map(([text, page]) => ({ text, link: `/${page.replace(/(index)?\.md$/, '')}` }));
}

const sidebar: DefaultTheme.SidebarItem[] = [
  { text: 'Introduction', items: items([['What it is', 'index.md'], ['Quick start', 'quick-start.md']]) },
  {
    text: 'Tutorial: a CronJob operator',
    items: items([
      ['Overview', 'tutorial/index.md'],
      ['1. A new project', 'tutorial/01-new-project.md'],
      ['2. Designing the API', 'tutorial/02-designing-the-api.md'],
      ['3. Implementing the controller', 'tutorial/03-implementing-the-controller.md'],
      ['4. Testing', 'tutorial/04-testing.md'],
      ['5. Webhooks', 'tutorial/05-webhooks.md'],
      ['6. Multi-version APIs and conversion', 'tutorial/06-multiversion.md'],
      ['7. Deploying', 'tutorial/07-deploying.md'],
    ]),
  },
  {
    text: 'Guides',
    items: items([
      ['Migrating a kubebuilder project', 'guides/migrating-from-kubebuilder.md'],
      ['Porting a real operator: Reloader', 'guides/porting-reloader.md'],
      ['Porting a real operator: Sealed Secrets', 'guides/porting-sealed-secrets.md'],
      ['Porting a real operator: trust-manager', 'guides/porting-trust-manager.md'],
      ['Testing', 'guides/testing.md'],
      ['Controllers that react to what changed', 'guides/reacting-to-changes.md'],
      ['Webhooks and certificates', 'guides/webhooks.md'],
      ["Other projects' kinds", 'guides/external-apis.md'],
      ['Plugins, and your own', 'guides/plugins.md'],
      ['Metrics', 'guides/metrics.md'],
      ['Leader election and replicas', 'guides/leader-election.md'],
      ['Scaling out: sharded controllers', 'guides/sharding.md'],
      ['One operator, many clusters', 'guides/multicluster.md'],
      ['Sizing memory', 'guides/memory.md'],
      ["The manager's image", 'guides/deploying.md'],
      ['Upgrading an older project', 'guides/upgrading.md'],
      ['Changelog and upgrade notes', 'changelog.md'],
      ['Projects you did not write', 'guides/untrusted-projects.md'],
      ['How kubescaffold is built', 'architecture.md'],
    ]),
  },
  {
    text: 'Reference',
    items: items([
      ['API types in TypeScript', 'types.md'],
      ['The runtime', 'runtime.md'],
      ['CLI', 'reference/cli.md'],
      ['Markers', 'reference/markers.md'],
      ['Runtime API', 'reference/api/index.md'],
    ]),
  },
].filter((group) => group.items.length > 0);

export default defineConfig({
  title: 'kubescaffold',
  description: 'Kubebuilder for TypeScript: scaffold, generate manifests for, and run Kubernetes operators written in TypeScript',
  // Built output and VitePress's cache stay out of the page tree; README-style files elsewhere are not pages.
  // The tutorial's finished project is published as files (scripts/docs-site.js copies it), not as pages.
  srcExclude: ['**/node_modules/**', 'tutorial/project/**'],
  // The default, said out loud: a link to a page that does not exist fails the build.
  ignoreDeadLinks: false,
  // Heading ids as GitHub spells them, so that a page.md#section link works in both places.
  markdown: { anchor: { slugify: githubSlug } },
  cleanUrls: false,
  lastUpdated: false,
  themeConfig: {
    // The book documents this version of the package; the nav says which.
    nav: [
      { text: 'Quick start', link: '/quick-start' },
      { text: 'Tutorial', link: '/tutorial/' },
      { text: 'Guides', link: '/guides/migrating-from-kubebuilder' },
      { text: 'CLI', link: '/reference/cli' },
      { text: 'API', link: '/reference/api/' },
      { text: `v${version}`, link: '/' },
    ],
    sidebar,
    outline: { level: [2, 3] },
    search: { provider: 'local' },
    socialLinks: [{ icon: 'github', link: repositoryUrl }],
    editLink: { pattern: `${repositoryUrl}/edit/main/docs/:path`, text: 'Edit this page' },
    footer: { message: `kubescaffold ${version}, Apache-2.0` },
  },
});
