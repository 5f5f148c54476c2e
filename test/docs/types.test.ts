import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runManifests } from '../../src/generate/command.js';
import { tempDir } from '../support/files.js';

// docs/types.md's examples, run through `scaffold manifests` as a user would paste them, so the page cannot rot.
const page = readFileSync(new URL('../../docs/types.md', import.meta.url), 'utf8');
const snippets = [...page.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
const dir = tempDir('kubescaffold-docs-types-');
afterAll(() => dir.remove());

interface Schema {
  properties?: Record<string, Schema>;
  required?: string[];
  minLength?: number;
  maxLength?: number;
  allOf?: Schema[];
}

describe('docs/types.md', () => {
  it('has examples that generate the CRD the page describes', async () => {
    expect(snippets).toHaveLength(3);
    const api = join(dir.path, 'api', 'v1');
    mkdirSync(api, { recursive: true });
    writeFileSync(
      join(dir.path, 'PROJECT'),
      'domain: example.com\nlayout:\n- typescript.kubescaffold.io/v1\nprojectName: docs\nrepo: docs\nversion: "3"\n',
    );
    writeFileSync(
      join(api, 'groupversion_info.ts'),
      "// +groupName=crew.example.com\nexport const GroupVersion = { group: 'crew.example.com', version: 'v1' } as const;\n",
    );
    writeFileSync(join(api, 'captain_types.ts'), snippets[0]!);
    writeFileSync(join(api, 'crew_types.ts'), snippets[2]!);
    writeFileSync(join(api, 'widget_types.ts'), snippets[1]!);
    // A Kind around the second example's spec, to see what its field becomes.
    writeFileSync(
      join(api, 'crew_kind.ts'),
      "import type { ObjectMeta, TypeMeta } from '@kubescaffold/runtime';\nimport type { CrewSpec } from './crew_types.js';\n\n// +kubebuilder:object:root=true\nexport interface Crew extends TypeMeta {\n  metadata?: ObjectMeta;\n  spec?: CrewSpec;\n}\n",
    );
    await runManifests({ root: dir.path, generatorVersion: 'docs' });
    const crd = parse(readFileSync(join(dir.path, 'config/crd/bases/crew.example.com_captains.yaml'), 'utf8')) as {
      spec: { versions: Array<{ schema: { openAPIV3Schema: Schema }; subresources?: object }> };
    };
    const version = crd.spec.versions[0]!;
    expect(version.subresources).toEqual({ status: {} });
    const spec = version.schema.openAPIV3Schema.properties!.spec!;
    expect(spec.required).toEqual(['ship']);
    expect(spec.properties!.ship!.minLength).toBe(1);

    const crew = parse(
      readFileSync(join(dir.path, 'config/crd/bases/crew.example.com_crews.yaml'), 'utf8'),
    ) as typeof crd;
    const code = crew.spec.versions[0]!.schema.openAPIV3Schema.properties!.spec!.properties!.code!;
    expect(code).toMatchObject({ minLength: 4, maxLength: 10 });

    // The embedding example: Go's int and []byte, a property declared again over the embedded one, and no List CRD.
    const widget = parse(
      readFileSync(join(dir.path, 'config/crd/bases/crew.example.com_widgets.yaml'), 'utf8'),
    ) as typeof crd;
    const widgetSpec = widget.spec.versions[0]!.schema.openAPIV3Schema.properties!.spec!;
    expect(widgetSpec.properties).toEqual({
      name: { description: 'name of the thing.', maxLength: 63, minLength: 1, type: 'string' },
      replicas: { description: "replicas is Go's int: an integer without a format.", type: 'integer' },
      payload: { description: "payload is Go's []byte.", format: 'byte', type: 'string' },
    });
    expect(existsSync(join(dir.path, 'config/crd/bases/crew.example.com_widgetlists.yaml'))).toBe(false);
  });
});
