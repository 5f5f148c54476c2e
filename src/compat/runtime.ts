/**
 * @deprecated Import from '@kubescaffold/runtime'. The runtime is its own package now, so that an operator's image holds it
 * without the CLI; this re-export keeps projects scaffolded before the split building (docs/guides/upgrading.md).
 *
 * @module kubescaffold/runtime
 */
export * from '@kubescaffold/runtime';
