/**
 * @deprecated Import from '@kubescaffold/envtest'. envtest is its own package now, a devDependency of a project;
 * this re-export keeps projects scaffolded before the split building (docs/guides/upgrading.md).
 *
 * @module kubescaffold/envtest
 */
export * from '@kubescaffold/envtest';
