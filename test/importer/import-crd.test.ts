/**
 * `scaffold import crd` on files and folders: the types it writes for every construct of a CRD schema (and that they
 * give the CRD back and compile), what it reports for constructs no marker spells, how it refuses bad input (file and
 * line, non-zero exit, nothing written), that it never overwrites a changed file without --force, and that a
 * project's `scaffold manifests` leaves the imported Kinds alone unless asked for them.
 */
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importCRDs } from '../../src/importer/command.js';
import { crdsToTypes, type SourcedCRD } from '../../src/importer/crd-to-types.js';
import { renderGroupVersion } from '../../src/importer/render.js';
import { verifyRoundTrip } from '../../src/importer/verify.js';
import type { CustomResourceDefinition } from '../../src/markers/apiextensions.js';
import { planManifests } from '../../src/generate/manifests.js';
import { TinyCA } from '../../src/runtime/certs/index.js';
import { listFiles } from '../support/files.js';
import { readCRDs, roundTrip } from '../support/import-roundtrip.js';
import { typeErrors } from '../support/typecheck.js';

const repo = join(import.meta.dirname, '../..');
const bin = join(repo, 'bin/scaffold.js');
const built = existsSync(join(repo, 'dist/cli/import.js'));
const fixtures = join(import.meta.dirname, '../fixtures/import');
const everyConstruct = join(fixtures, 'every-construct.yaml');
const beyond = join(fixtures, 'beyond-controller-gen.yaml');

/** The lines of a namespaced toys.example.com CRD with one version, down to that version's `storage: true`. */
function crdLines(name: string, kind: string, plural: string, version: string): string[] {
  return [
    'apiVersion: apiextensions.k8s.io/v1',
    'kind: CustomResourceDefinition',
    'metadata:',
    `  name: ${name}`,
    'spec:',
    '  group: toys.example.com',
    `  names: { kind: ${kind}, plural: ${plural} }`,
    '  scope: Namespaced',
    '  versions:',
    `  - name: ${version}`,
    '    served: true',
    '    storage: true',
  ];
}

/** A version's schema, down to the spec object's own keys (to follow at 12 spaces). */
const SPEC_SCHEMA = [
  '    schema:',
  '      openAPIV3Schema:',
  '        type: object',
  '        properties:',
  '          spec:',
  '            type: object',
];

/** A CRD with what no marker, ours or controller-gen's, can say: a default of null, and a name not <plural>.<group>. */
const LOSSY = [
  ...crdLines('levers.example.com', 'Lever', 'levers', 'v1'),
  ...SPEC_SCHEMA,
  '            properties:',
  '              pick: { type: string, nullable: true, default: null }',
  '',
].join('\n');
let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'ks-import-cli-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const scaffold = async (
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ status: number; stdout: string; stderr: string }> => {
  try {
    const r = await promisify(execFile)(process.execPath, [bin, ...args], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, ...env },
    });
    return { status: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { status: e.code, stdout: e.stdout, stderr: e.stderr };
  }
};

const typeFiles = (dir: string): string[] =>
  listFiles(dir)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(dir, f));

describe('import crd: the types', () => {
  it('spells every construct of the schema with a marker or a type, and gives the CRD back exactly', async () => {
    const rt = await roundTrip([everyConstruct], readCRDs([everyConstruct]));
    try {
      expect(rt.diffs).toEqual({ 'gadgets.toys.example.com': [] });
      expect(rt.imported.problems).toEqual([]);
      const v1 = readFileSync(join(rt.dir, 'out/toys.example.com/v1/gadget_types.ts'), 'utf8');
      // readable spellings: literal unions, runtime types, named types for array items, markers as kubebuilder's
      for (const line of [
        "mode?: 'Fast' | 'Slow' | 'Off';",
        'conditions?: Condition[];',
        'memory?: Quantity;',
        'port?: IntOrString;',
        'startAt?: Time;',
        'nick?: string | null;',
        'config?: RawExtension;',
        'raw?: JSONValue;',
        'entries?: Entry[];',
        'export type Tag = string;',
        '// +kubebuilder:resource:shortName=gd;gdt,categories=toys;all',
        '// +kubebuilder:subresource:scale:specpath=".spec.replicas",statuspath=".status.replicas",selectorpath=".status.selector"',
        '// +kubebuilder:storageversion',
      ])
        expect(v1).toContain(line);
      const v1beta1 = readFileSync(join(rt.dir, 'out/toys.example.com/v1beta1/gadget_types.ts'), 'utf8');
      expect(v1beta1).toContain(
        '// +kubebuilder:deprecatedversion:warning="toys.example.com/v1beta1 Gadget is deprecated; use v1"',
      );
      expect(v1beta1).toContain('// +kubebuilder:unservedversion');
      expect(readFileSync(join(rt.dir, 'out/toys.example.com/v1/zz_generated.resources.ts'), 'utf8')).toContain(
        "export const GadgetResource = defineResource<Gadget>({\n  group: 'toys.example.com',\n  version: 'v1',\n  kind: 'Gadget',\n  plural: 'gadgets',\n  namespaced: true,\n});",
      );
      expect(typeErrors(typeFiles(join(rt.dir, 'out')))).toEqual([]);
    } finally {
      rt.cleanup();
    }
  });

  it('writes back quotes, backslashes, line breaks and comment terminators, and names that collide', async () => {
    const tricky = join(fixtures, 'tricky.yaml');
    const rt = await roundTrip([tricky], readCRDs([tricky]));
    try {
      expect(rt.diffs).toEqual({ 'commons.toys.example.com': [] });
      expect(rt.imported.problems).toEqual([]);
      expect(typeErrors(typeFiles(join(rt.dir, 'out')))).toEqual([]);
    } finally {
      rt.cleanup();
    }
  });

  it('gives back what controller-gen has no marker for, with markers of ours, and needs no project-wide flag', async () => {
    const rt = await roundTrip([beyond], readCRDs([beyond]));
    try {
      expect(rt.diffs).toEqual({ 'levers.toys.example.com': [] });
      expect(rt.imported.problems).toEqual([]);
      const v1 = readFileSync(join(rt.dir, 'out/toys.example.com/v1/lever_types.ts'), 'utf8');
      for (const line of [
        '// +kubescaffold:crd:listKind=""',
        '// +kubescaffold:crd:singular=""',
        '// +kubescaffold:crd:preserveUnknownFields=false',
        '// +kubescaffold:crd:versions=v1beta1;v1',
        '// +kubescaffold:crd:conversion={"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"service":{"name":"lever-webhook","namespace":"toys-system","path":"/convert","port":9443}}}}',
        '// +kubescaffold:schema:patch={"properties":{"apiVersion":null,"kind":null,"metadata":null}}',
        '// +kubescaffold:validation:RequiredOrder=secretName;certificate;key',
        '// +kubescaffold:validation:OneOf=[{"required":["either"]},{"required":["or"]}]',
        '  // +kubescaffold:validation:AnyOf=[{"minLength":2},{"maxLength":0}]',
        '  // +kubescaffold:validation:Not={"enum":["forbidden"]}',
        '  // +kubescaffold:validation:AllOf=[{"minimum":1},{"maximum":9}]',
        '  // +kubebuilder:validation:Type=number',
        '  ratio?: number;',
        '  // +kubescaffold:schema:patch={"maxLength":253,"pattern":"^[a-z.]+$"}',
        '  // +kubescaffold:schema:patch={"nullable":false}',
        '  // +kubescaffold:schema:patch={"additionalProperties":true}',
        '  // \\+optional is part of this text, not a marker.',
      ])
        expect(v1).toContain(line);
      expect(readFileSync(join(rt.dir, 'out/toys.example.com/v1beta1/lever_types.ts'), 'utf8')).toContain(
        '// +kubescaffold:version:patch={"deprecated":false,"additionalPrinterColumns":[{"name":"Size","type":"integer","jsonPath":".spec.size","priority":0}],"subresources":null}',
      );
      expect(typeErrors(typeFiles(join(rt.dir, 'out')))).toEqual([]);
    } finally {
      rt.cleanup();
    }
  });

  it('refuses what no marker spells, naming file, line, path and reason, and writes nothing', async () => {
    writeFileSync(join(root, 'lossy.yaml'), LOSSY);
    const message = await importCRDs({ root, sources: ['lossy.yaml'], boilerplate: '' }).then(
      () => 'imported',
      (err: Error) => err.message,
    );
    expect(message.split('\n')).toEqual([
      "lossy.yaml:4: Lever: the CRD's name must be levers.toys.example.com; it becomes that",
      'lossy.yaml:20: Lever v1 .spec.pick (default): a default of null has no marker; it is left out',
      '2 path(s) of the CRDs have no marker spelling (above, each with its reason); nothing was written. Pass --lossy (scaffold import crd --lossy) to write the types without them.',
    ]);
    expect(existsSync(join(root, 'external'))).toBe(false);
  });

  it('checks its own output: a path that scaffold manifests gives back otherwise is a problem naming it', async () => {
    const lever = (maxLength: number): CustomResourceDefinition =>
      readCRDs([beyond]).map((c) => {
        const spec = c.spec.versions[1]!.schema.openAPIV3Schema.properties!.spec!;
        spec.properties!.secretName!.maxLength = maxLength;
        return c;
      })[0]!;
    const source = (maxLength: number): SourcedCRD => ({
      crd: lever(maxLength),
      origin: 'lever.yaml',
      lineOf: () => 9,
    });
    // the types of a CRD whose secretName is at most 5 long, checked against one where it is at most 6
    const files = crdsToTypes([source(5)]).groupVersions.flatMap((gv) =>
      renderGroupVersion(gv, { header: '', runtimeModule: '@kubescaffold/runtime' }),
    );
    expect(await verifyRoundTrip([source(6)], files)).toEqual([
      {
        docPath: [
          'spec',
          'versions',
          1,
          'schema',
          'openAPIV3Schema',
          'properties',
          'spec',
          'properties',
          'secretName',
          'maxLength',
        ],
        where:
          'levers.toys.example.com .spec.versions[1].schema.openAPIV3Schema.properties.spec.properties.secretName.maxLength',
        message: 'scaffold manifests gives this back otherwise (a bug of the import; please report it)',
        origin: 'lever.yaml',
        line: 9,
      },
    ]);
    expect(await verifyRoundTrip([source(5)], files)).toEqual([]);
  });

  it("takes no server-set metadata for a path to give back (older controller-gen's creationTimestamp: null)", async () => {
    writeFileSync(
      join(root, 'old.yaml'),
      readFileSync(beyond, 'utf8').replace(
        'metadata:\n  name: levers.toys.example.com\n',
        'metadata:\n  creationTimestamp: null\n  name: levers.toys.example.com\n',
      ),
    );
    const result = await importCRDs({ root, sources: ['old.yaml'], boilerplate: '' });
    expect(result.problems).toEqual([]);
    expect(result.written).toContain('external/toys.example.com/v1/lever_types.ts');
  });

  it('takes empty lists and maps and nulls outside the schema as absent, as the API server stores the CRD', async () => {
    const withEmpties = readFileSync(beyond, 'utf8')
      .replace(
        'metadata:\n  name: levers.toys.example.com\n',
        'metadata:\n  name: levers.toys.example.com\n  labels: {}\n',
      )
      .replace(/^(\s+)plural: levers$/m, '$1plural: levers\n$1categories: []\n$1shortNames: []')
      .replace(/^(\s+)- name: v1$/m, '$1- name: v1\n$1  deprecationWarning: null\n$1  additionalPrinterColumns: []');
    for (const construct of ['labels: {}', 'categories: []', 'shortNames: []', 'deprecationWarning: null'])
      expect(withEmpties).toContain(construct);
    writeFileSync(join(root, 'empties.yaml'), withEmpties);
    writeFileSync(join(root, 'plain.yaml'), readFileSync(beyond, 'utf8'));
    const empties = await importCRDs({ root, sources: ['empties.yaml'], boilerplate: '', outputDir: 'a' });
    expect(empties.problems).toEqual([]);
    const plain = await importCRDs({ root, sources: ['plain.yaml'], boilerplate: '', outputDir: 'b' });
    expect(readFileSync(join(root, 'a/toys.example.com/v1/lever_types.ts'), 'utf8')).toBe(
      readFileSync(join(root, 'b/toys.example.com/v1/lever_types.ts'), 'utf8'),
    );
    expect(plain.problems).toEqual([]);
  });

  it('gives back x-kubernetes-int-or-string with nullable and no anyOf (an optional Quantity of kube-derive)', async () => {
    const crd = [
      ...crdLines('levers.toys.example.com', 'Lever', 'levers', 'v1'),
      ...SPEC_SCHEMA,
      '            properties:',
      '              limit: { x-kubernetes-int-or-string: true, nullable: true }',
      '',
    ].join('\n');
    writeFileSync(join(root, 'quantity.yaml'), crd);
    const result = await importCRDs({ root, sources: ['quantity.yaml'], boilerplate: '' });
    expect(result.problems).toEqual([]);
    const types = readFileSync(join(root, 'external/toys.example.com/v1/lever_types.ts'), 'utf8');
    expect(types).toMatch(/\+kubebuilder:validation:XIntOrString\n\s*\/\/ \+nullable\n\s*limit\?: unknown \| null;/);
  });

  it('still compares subresources as written: an empty status subresource is not an empty map to drop', async () => {
    const lever = (status: boolean): SourcedCRD => {
      const crd = readCRDs([beyond])[0]!;
      for (const v of crd.spec.versions) {
        if (status) v.subresources = { ...v.subresources, status: {} };
        else delete v.subresources?.status;
        if (v.subresources && Object.keys(v.subresources).length === 0) delete v.subresources;
      }
      return { crd, origin: 'lever.yaml', lineOf: () => 9 };
    };
    // the types of a CRD without the status subresource, checked against one with it
    const files = crdsToTypes([lever(false)]).groupVersions.flatMap((gv) =>
      renderGroupVersion(gv, { header: '', runtimeModule: '@kubescaffold/runtime' }),
    );
    const problems = await verifyRoundTrip([lever(true)], files);
    expect(problems.map((p) => p.where)).toContain('levers.toys.example.com .spec.versions[0].subresources');
    expect(await verifyRoundTrip([lever(false)], files)).toEqual([]);
  });

  it('with lossy, writes the types and returns what was lost as problems', async () => {
    writeFileSync(join(root, 'lossy.yaml'), LOSSY);
    const result = await importCRDs({ root, sources: ['lossy.yaml'], boilerplate: '', lossy: true });
    expect(result.problems.map((p) => `${p.line}: ${p.where}`)).toEqual([
      '4: Lever',
      '20: Lever v1 .spec.pick (default)',
    ]);
    expect(typeErrors(typeFiles(join(root, 'external')))).toEqual([]);
  });

  it("is left out of the project's `scaffold manifests`, and generated when its folder is named", async () => {
    mkdirSync(join(root, 'api/v1'), { recursive: true });
    writeFileSync(
      join(root, 'api/v1/groupversion_info.ts'),
      "// +groupName=crew.example.com\nexport const GroupVersion = { group: 'crew.example.com', version: 'v1' };\n",
    );
    writeFileSync(
      join(root, 'api/v1/captain_types.ts'),
      "import type { ObjectMeta, TypeMeta } from '@kubescaffold/runtime';\n\n// +kubebuilder:object:root=true\nexport interface Captain extends TypeMeta {\n  metadata?: ObjectMeta;\n}\n",
    );
    await importCRDs({ root, sources: [everyConstruct], boilerplate: '' });
    const project = planManifests({ root, generatorVersion: '(test)' });
    expect(project.crds.map((c) => c.metadata.name)).toEqual(['captains.crew.example.com']);
    const named = planManifests({
      root,
      paths: ['./external/...'],
      generatorVersion: '(test)',
      allowDangerousTypes: true,
    });
    expect(named.crds.map((c) => c.metadata.name)).toEqual(['gadgets.toys.example.com']);
  });
});

describe.skipIf(!built)('import crd on the command line', () => {
  it('refuses bad input naming file and line, exits non-zero, and writes nothing', async () => {
    writeFileSync(join(root, 'broken.yaml'), 'apiVersion: v1\nkind: [unclosed\n');
    writeFileSync(
      join(root, 'old.yaml'),
      'apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nmetadata:\n  name: a.b.c\n',
    );
    writeFileSync(
      join(root, 'noschema.yaml'),
      [...crdLines('things.toys.example.com', 'Thing', 'things', 'v1beta1'), ''].join('\n'),
    );
    writeFileSync(join(root, 'plain.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n');
    writeFileSync(
      join(root, 'malformed.yaml'),
      [
        ...crdLines('things.toys.example.com', 'Thing', 'things', 'v1'),
        ...SPEC_SCHEMA,
        '            required: name',
        '',
      ].join('\n'),
    );
    const before = readdirSync(root).sort();
    for (const [file, expected] of [
      ['broken.yaml', /^Error: broken\.yaml is not valid YAML: line \d+: /m],
      [
        'old.yaml',
        /^Error: old\.yaml:1: apiVersion "apiextensions\.k8s\.io\/v1beta1" is not apiextensions\.k8s\.io\/v1; convert/m,
      ],
      ['noschema.yaml', /^Error: noschema\.yaml:\d+: version v1beta1 has no schema\.openAPIV3Schema/m],
      ['plain.yaml', /^Error: plain\.yaml holds no CustomResourceDefinition/m],
      ['malformed.yaml', /^Error: malformed\.yaml:19: version v1: required must be a list of strings/m],
      ['missing.yaml', /^Error: missing\.yaml is neither a file, a folder, an https URL nor the name of a CRD/m],
      ['http://example.com/crd.yaml', /only https URLs can be read/],
    ] as const) {
      const r = await scaffold(['import', 'crd', everyConstruct, file]);
      expect(r.status, file).toBe(1);
      expect(r.stderr, file).toMatch(expected);
      expect(readdirSync(root).sort(), file).toEqual(before);
    }
    // the line of the version that lacks the schema
    expect((await scaffold(['import', 'crd', 'noschema.yaml'])).stderr).toContain('noschema.yaml:10: version v1beta1');
  });

  it('exits non-zero on a path no marker spells, and with --lossy writes the types, warns and counts the lost paths', async () => {
    writeFileSync(join(root, 'lossy.yaml'), LOSSY);
    const refused = await scaffold(['import', 'crd', 'lossy.yaml']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('lossy.yaml:20: Lever v1 .spec.pick (default): a default of null has no marker');
    expect(existsSync(join(root, 'external'))).toBe(false);
    const lossy = await scaffold(['import', 'crd', 'lossy.yaml', '--lossy']);
    expect(lossy.status).toBe(0);
    expect(lossy.stderr).toContain('warning: lossy.yaml:4: Lever: ');
    expect(lossy.stderr).toContain('warning: --lossy: 2 path(s) of the CRDs are lost');
    expect(existsSync(join(root, 'external/toys.example.com/v1/lever_types.ts'))).toBe(true);
  });

  it('never overwrites a changed file without --force; importing again changes nothing', async () => {
    const first = await scaffold(['import', 'crd', everyConstruct, '--output-dir', 'api/external']);
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    expect(first.stdout).toContain('api/external/toys.example.com/v1/gadget_types.ts');
    expect(first.stdout).toContain('api/external/toys.example.com/v1/zz_generated.resources.js (GadgetResource)');
    const again = await scaffold(['import', 'crd', everyConstruct, '--output-dir', 'api/external']);
    expect(again.stdout).toContain('Nothing to write');
    const file = join(root, 'api/external/toys.example.com/v1/gadget_types.ts');
    writeFileSync(file, '// mine\n');
    const refused = await scaffold(['import', 'crd', everyConstruct, '--output-dir', 'api/external']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(
      'api/external/toys.example.com/v1/gadget_types.ts already exists; remove it or re-run with --force to overwrite it',
    );
    expect(readFileSync(file, 'utf8')).toBe('// mine\n');
    const forced = await scaffold(['import', 'crd', everyConstruct, '--output-dir', 'api/external', '--force']);
    expect(forced.status).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('export interface Gadget extends TypeMeta');
  });

  it('refuses to drop the Kinds an earlier import wrote into the same group and version', async () => {
    const tricky = join(fixtures, 'tricky.yaml');
    expect((await scaffold(['import', 'crd', everyConstruct])).status).toBe(0);
    const before = readFileSync(join(root, 'external/toys.example.com/v1/zz_generated.resources.ts'), 'utf8');
    const alone = await scaffold(['import', 'crd', tricky]);
    expect(alone.status).toBe(1);
    expect(alone.stderr).toContain(
      'external/toys.example.com/v1 holds Gadget from an earlier import; import their CRDs together with these',
    );
    expect(readFileSync(join(root, 'external/toys.example.com/v1/zz_generated.resources.ts'), 'utf8')).toBe(before);
    const together = await scaffold(['import', 'crd', everyConstruct, tricky, '--force']);
    expect(together.status).toBe(0);
    const resources = readFileSync(join(root, 'external/toys.example.com/v1/zz_generated.resources.ts'), 'utf8');
    expect(resources).toContain('export const CommonResource');
    expect(resources).toContain('export const GadgetResource');
  });

  it('refuses an output folder outside the project, or a link in it that leads out', async () => {
    const r = await scaffold(['import', 'crd', everyConstruct, '--output-dir', '../elsewhere']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/is outside the project/);
    const outside = mkdtempSync(join(tmpdir(), 'ks-import-outside-'));
    try {
      mkdirSync(join(root, 'external/toys.example.com'), { recursive: true });
      symlinkSync(outside, join(root, 'external/toys.example.com/v1'));
      const linked = await scaffold(['import', 'crd', everyConstruct]);
      expect(linked.status).toBe(1);
      expect(linked.stderr).toMatch(/external\/toys\.example\.com\/v1.*(outside the project|leads out)/);
      expect(readdirSync(outside)).toEqual([]);
      expect(existsSync(join(root, 'external/toys.example.com/v1beta1'))).toBe(false);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  describe('from an https URL', () => {
    let server: Server;
    let caFile: string;
    let base: string;

    beforeEach(async () => {
      const ca = TinyCA.create({ commonName: 'import-test-ca' });
      const leaf = ca.issue({ commonName: 'localhost', ipAddresses: ['127.0.0.1'], usage: 'server' });
      caFile = join(root, 'ca.crt');
      writeFileSync(caFile, ca.certPem);
      server = createServer({ cert: leaf.certPem, key: leaf.keyPem }, (req, res) => {
        if (req.url === '/crds/gadgets.yaml') res.end(readFileSync(everyConstruct));
        else if (req.url === '/moved') res.writeHead(302, { location: '/crds/gadgets.yaml' }).end();
        else res.writeHead(404).end('not found');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `https://127.0.0.1:${(server.address() as { port: number }).port}`;
    });
    afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('reads the CRDs it serves (following a redirect), and names a URL that fails', async () => {
      const env = { NODE_EXTRA_CA_CERTS: caFile };
      const r = await scaffold(['import', 'crd', `${base}/moved`], env);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(readFileSync(join(root, 'external/toys.example.com/v1/gadget_types.ts'), 'utf8')).toContain(
        'export interface Gadget extends TypeMeta',
      );
      const missing = await scaffold(['import', 'crd', `${base}/nothing.yaml`, '--output-dir', 'other'], env);
      expect(missing.status).toBe(1);
      expect(missing.stderr).toContain(`${base}/nothing.yaml answered 404`);
      expect(existsSync(join(root, 'other'))).toBe(false);
      // without trusting the server's CA the certificate is refused
      const untrusted = await scaffold(['import', 'crd', `${base}/crds/gadgets.yaml`, '--output-dir', 'other']);
      expect(untrusted.status).toBe(1);
      expect(untrusted.stderr).toMatch(/could not be fetched: .*(certificate|self.signed)/i);
    });
  });
});
