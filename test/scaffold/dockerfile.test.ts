/**
 * The scaffolded Dockerfile's base images are build arguments (BASE_IMAGE for the build stage, as kubebuilder's
 * Dockerfile has it, and RUNTIME_IMAGE for the final stage), so that users can pin or mirror them; read here with the
 * same parser that builds the image in test/e2e/image.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseDockerfile } from '../../scripts/lib/dockerfile.js';
import { initProject, tempProjectDir } from './helpers.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function scaffoldedDockerfile(): string {
  const { root, cleanup } = tempProjectDir();
  cleanups.push(cleanup);
  initProject(root);
  return readFileSync(join(root, 'Dockerfile'), 'utf8');
}

describe('the scaffolded Dockerfile', () => {
  it('builds from node:22-bookworm-slim and runs on distroless nodejs22 by default', () => {
    expect(parseDockerfile(scaffoldedDockerfile()).map((s) => s.image)).toEqual([
      'node:22-bookworm-slim',
      'gcr.io/distroless/nodejs22-debian12:nonroot',
    ]);
  });

  it('takes both stages from --build-arg BASE_IMAGE and RUNTIME_IMAGE', () => {
    const stages = parseDockerfile(scaffoldedDockerfile(), {
      BASE_IMAGE: 'mirror.example.com/node:22.20-bookworm-slim',
      RUNTIME_IMAGE: 'mirror.example.com/distroless/nodejs22-debian12:nonroot',
    });
    expect(stages.map((s) => s.image)).toEqual([
      'mirror.example.com/node:22.20-bookworm-slim',
      'mirror.example.com/distroless/nodejs22-debian12:nonroot',
    ]);
    expect(stages[0]!.name).toBe('builder');
  });

  it('refuses, in the parser, a FROM variable that no ARG declares', () => {
    expect(() => parseDockerfile('FROM ${NOT_DECLARED}\n')).toThrow('FROM uses $NOT_DECLARED, no ARG');
  });
});
