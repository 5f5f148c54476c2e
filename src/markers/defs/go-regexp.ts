/** Go's regexp verdict on a `+kubebuilder:validation:Pattern`: controller-gen and the API server both check with it. */
import { createRequire } from 'node:module';

// re2js, a port of RE2, parses patterns as Go's regexp does; loaded on the first Pattern marker only.
let re2: typeof import('re2js') | undefined;
// the same pattern on the same field type in many Kinds is compiled once
const patternProblems = new Map<string, string | undefined>();

/** Go's regexp error for a pattern it refuses ("missing closing ): `a(b`"), or undefined. */
export function patternProblem(pattern: string): string | undefined {
  if (patternProblems.has(pattern)) return patternProblems.get(pattern);
  re2 ??= createRequire(import.meta.url)('re2js') as typeof import('re2js');
  let problem: string | undefined;
  try {
    re2.RE2JS.compile(pattern);
  } catch (err) {
    problem = (err as Error).message.replace(/^error parsing regexp: /, '');
  }
  patternProblems.set(pattern, problem);
  return problem;
}
