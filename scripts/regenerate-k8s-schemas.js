/**
 * Regenerates schemas.json: the schemas of Kubernetes API types that projects use as fields, produced by running the
 * real controller-gen over a Go "catalog" Kind with one field per type, so they match controller-gen exactly.
 * Needs Go and the module proxy (or a module cache). Run after a Kubernetes version bump:
 *
 *   npm run build && node scripts/regenerate-k8s-schemas.js [src/crd/k8s_schemas/schemas.json]
 *
 * Each Go struct type is bundled under the @kubernetes/client-node model name that has the same JSON fields
 * (V1PodTemplateSpec, CoreV1EndpointPort, RbacV1Subject, ...). A build tool: not part of the package; it packs the
 * schemas with the built dist/crd/k8s_schemas/store.js, so the format stays the one the package reads.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { pack } from '../dist/crd/k8s_schemas/store.js';
import { findControllerGen, K8S_MODULE_VERSION, prepareGoModule } from './lib/controller-gen.js';
/** Go packages whose struct types are bundled, with the group prefix client-node uses on name clashes. */
const packages = [
  { path: 'k8s.io/api/core/v1', alias: 'corev1', version: 'V1', group: 'Core' },
  { path: 'k8s.io/api/apps/v1', alias: 'appsv1', version: 'V1', group: 'Apps' },
  { path: 'k8s.io/api/batch/v1', alias: 'batchv1', version: 'V1', group: 'Batch' },
  { path: 'k8s.io/api/networking/v1', alias: 'networkingv1', version: 'V1', group: 'Networking' },
  { path: 'k8s.io/api/rbac/v1', alias: 'rbacv1', version: 'V1', group: 'Rbac' },
  { path: 'k8s.io/api/policy/v1', alias: 'policyv1', version: 'V1', group: 'Policy' },
  { path: 'k8s.io/api/autoscaling/v2', alias: 'autoscalingv2', version: 'V2', group: 'Autoscaling' },
  { path: 'k8s.io/api/discovery/v1', alias: 'discoveryv1', version: 'V1', group: 'Discovery' },
  { path: 'k8s.io/apimachinery/pkg/apis/meta/v1', alias: 'metav1', version: 'V1', group: 'Meta' },
];

/** meta/v1 types that make sense as fields (the rest are request options and discovery documents). */
const metaTypes = new Set([
  'OwnerReference',
  'LabelSelector',
  'LabelSelectorRequirement',
  'ManagedFieldsEntry',
  'Condition',
]);

/**
 * A Go struct that may be bundled: its package, name and JSON field names (with those of same-package structs it
 * embeds with `json:",inline"`, listed in `inline`).
 * @typedef {{ pkg: (typeof packages)[number], name: string, jsonFields: Set<string>, inline: string[] }} GoStruct
 */

/** @returns {GoStruct[]} */
function goStructs(dir, pkg) {
  const out = [];
  for (const file of readdirSync(dir).filter(
    (f) => f.endsWith('.go') && !f.endsWith('_test.go') && !f.startsWith('zz_') && !f.startsWith('generated'),
  )) {
    const text = readFileSync(join(dir, file), 'utf8');
    for (const m of text.matchAll(/^type ([A-Z]\w*) struct \{\n([\s\S]*?)^\}/gm)) {
      const [, name, body] = m;
      if (/^\s*metav1\.TypeMeta\b|^\s*TypeMeta\b/m.test(body) || name.endsWith('List')) continue; // Kinds and lists are not field types
      if (pkg.alias === 'metav1' && !metaTypes.has(name)) continue;
      const jsonFields = new Set([...body.matchAll(/json:"([^",]+)/g)].map((f) => f[1]).filter((f) => f !== '-'));
      const inline = [...body.matchAll(/^\s+\*?([A-Z]\w*)\s+`json:"(?:,[^"]*)?"/gm)].map((f) => f[1]);
      if (jsonFields.size === 0 && inline.length === 0) continue;
      out.push({ pkg, name, jsonFields, inline });
    }
  }
  const byName = new Map(out.map((s) => [s.name, s]));
  const expand = (s, seen) => {
    for (const e of s.inline) {
      const embedded = byName.get(e);
      if (!embedded || seen.has(e)) continue;
      seen.add(e);
      expand(embedded, seen);
      for (const f of embedded.jsonFields) s.jsonFields.add(f);
    }
  };
  for (const s of out) expand(s, new Set([s.name]));
  return out;
}

/** client-node model names and the JSON field names of each model. */
function clientNodeModels() {
  const require = createRequire(import.meta.url);
  const modelsDir = join(dirname(require.resolve('@kubernetes/client-node/package.json')), 'dist', 'gen', 'models');
  const models = new Map();
  for (const f of readdirSync(modelsDir).filter((x) => x.endsWith('.d.ts'))) {
    const text = readFileSync(join(modelsDir, f), 'utf8');
    const cls = /export declare class (\w+)/.exec(text);
    if (!cls) continue;
    models.set(cls[1], new Set([...text.matchAll(/^\s+'([^']+)'\??:/gm)].map((x) => x[1])));
  }
  return models;
}

/** The client-node model for a Go struct: the candidate name whose fields are all fields of the struct. */
function modelName(s, models) {
  for (const candidate of [`${s.pkg.version}${s.name}`, `${s.pkg.group}${s.pkg.version}${s.name}`]) {
    const fields = models.get(candidate);
    if (fields && fields.size > 0 && [...fields].every((f) => s.jsonFields.has(f))) return candidate;
  }
  return undefined;
}

/** Writes the packed schemas to `outFile`; returns how many types and bytes it wrote. */
export function regenerate(outFile) {
  const work = mkdtempSync(join(tmpdir(), 'ks-builtin-'));
  try {
    prepareGoModule(work, 'example.com/catalog');
    const env = { ...process.env, GOWORK: 'off', GOFLAGS: '-mod=mod' };
    // The module has no Go files yet, so prepareGoModule's tidy dropped its requirements: pin them again, or
    // `go list` would resolve the newest k8s.io/api instead of K8S_MODULE_VERSION.
    execFileSync('go', ['get', `k8s.io/api@${K8S_MODULE_VERSION}`, `k8s.io/apimachinery@${K8S_MODULE_VERSION}`], {
      cwd: work,
      env,
      stdio: 'ignore',
    });
    const models = clientNodeModels();
    const chosen = new Map();
    for (const pkg of packages) {
      const dir = execFileSync('go', ['list', '-f', '{{.Dir}}', pkg.path], { cwd: work, env, encoding: 'utf8' }).trim();
      for (const s of goStructs(dir, pkg)) {
        const name = modelName(s, models);
        if (name && !chosen.has(name)) chosen.set(name, s);
      }
    }
    const names = [...chosen.keys()].sort();
    const used = new Set(names.map((n) => chosen.get(n).pkg));
    const go = [
      '// +groupName=builtin.kubescaffold.io',
      'package v1',
      '',
      'import (',
      ...[...used].map((p) => `\t${p.alias} "${p.path}"`),
      ...(used.has(packages.find((p) => p.alias === 'metav1'))
        ? []
        : ['\tmetav1 "k8s.io/apimachinery/pkg/apis/meta/v1"']),
      ')',
      '',
      'type CatalogSpec struct {',
      ...names.map((n) => `\t${n} ${chosen.get(n).pkg.alias}.${chosen.get(n).name} \`json:"${n}"\``),
      '}',
      '',
      '// +kubebuilder:object:root=true',
      'type Catalog struct {',
      '\tmetav1.TypeMeta   `json:",inline"`',
      '\tmetav1.ObjectMeta `json:"metadata,omitempty"`',
      '\tSpec CatalogSpec `json:"spec"`',
      '}',
      '',
    ].join('\n');
    writeFileSync(join(work, 'catalog.go'), go);
    execFileSync(findControllerGen(), ['crd', 'paths=./...', 'output:crd:artifacts:config=out'], {
      cwd: work,
      env,
      stdio: 'pipe',
    });
    const crd = parse(readFileSync(join(work, 'out', 'builtin.kubescaffold.io_catalogs.yaml'), 'utf8'));
    const props = crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties;
    const comment = `Code generated by scripts/regenerate-k8s-schemas.js from controller-gen and k8s.io/api ${K8S_MODULE_VERSION}. DO NOT EDIT. Packed schemas (see store.ts) of ${names.length} Kubernetes types, by @kubernetes/client-node model name.`;
    const body = `${JSON.stringify({ comment, ...pack(props) })}\n`;
    writeFileSync(outFile, body);
    return { types: names.length, bytes: body.length };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '../src/crd/k8s_schemas/schemas.json');
  const r = regenerate(out);
  console.log(`${out}: ${r.types} types, ${r.bytes} bytes`);
}
