// Fuzzing the marker grammar: real marker lines (one per registered marker, from its usage, and hand-written ones in
// the shapes users write), mutated, parsed against the registry and collected from a TypeScript file. Every input
// parses or yields a diagnostic with a message: never an error escaping, never a hang. Bounded: FUZZ_SEED and
// FUZZ_CASE replay a failure (test/support/fuzz.ts).
import { describe, expect, it } from 'vitest';
import { collectFile } from '../../src/markers/collector.js';
import { MarkerSyntaxError, parseMarkerArguments } from '../../src/markers/grammar.js';
import { definitions, lookupMarker, usage } from '../../src/markers/registry.js';
import type { MarkerTarget } from '../../src/markers/defs/define.js';
import { fuzz, mutateText, summary, type Random } from '../support/fuzz.js';

/** A marker's usage (`+name:a=<int>,[b=<string;...>]`) with sample values for the placeholders. */
function example(usageText: string): string {
  const samples: Record<string, string> = {
    string: 'abc',
    int: '3',
    number: '1.5',
    bool: 'true',
    value: '5',
    JSON: '{"a":[1,"x"]}',
  };
  return usageText.replace(/\[([^\]]*)\]/g, '$1').replace(/<([^>;]*)(;\.\.\.)?>/g, (_, t: string, list?: string) => {
    const one = samples[t] ?? (t.startsWith('{') ? '{k: 1, "q": x}' : 'v');
    return list ? `${one};${one}` : one;
  });
}

const CORPUS: readonly string[] = [
  ...definitions.map((d) => example(usage(d))),
  '+kubebuilder:validation:Pattern=`^[a-z]([-a-z0-9]*[a-z0-9])?$`',
  '+kubebuilder:validation:Enum=Fast;Slow;"quoted, with comma"',
  '+kubebuilder:validation:Enum={1,2.5,-3,0x1F}',
  '+kubebuilder:default={replicas: 1, "mode": Fast, list: {a,b}}',
  '+kubebuilder:default:=3',
  '+default=ref(Default)',
  '+kubebuilder:example={"a": [true, null]}',
  '+kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`,priority=1',
  '+kubebuilder:rbac:groups=apps;"",resources=deployments/status,verbs=get;list;watch',
  '+kubebuilder:webhook:path=/mutate,mutating=true,failurePolicy=fail,sideEffects=None,groups=crew.example.com,resources=captains,verbs=create;update,versions=v1,name=m.kb.io,admissionReviewVersions=v1',
  '+kubebuilder:validation:XValidation:rule="self.size() > 0",message="must not be empty"',
  '+kubebuilder:validation:Maximum=1e3',
  '+kubebuilder:validation:MultipleOf=0.5',
  '+kubebuilder:resource:scope=Cluster,shortName={cap,caps}',
  '+listMapKey=type',
  '+genclient',
];

const TARGETS: readonly MarkerTarget[] = ['package', 'type', 'field'];

/** A small file holding the marker above a type, above a property, in a JSDoc, or free-standing. */
function fileWith(r: Random, marker: string): string {
  switch (r.int(4)) {
    case 0:
      return `// ${marker}\nexport interface Spec {\n  a?: string;\n}\n`;
    case 1:
      return `export interface Spec {\n  // ${marker}\n  a?: string;\n}\n`;
    case 2:
      return `export interface Spec {\n  /**\n   * doc\n   * ${marker}\n   */\n  a?: number;\n}\n`;
    default:
      return `// ${marker}\n\nexport type X = string;\n`;
  }
}

interface MarkerCase {
  marker: string;
  file: string;
}

/** Parses `marker` for every target it resolves on: a value or a MarkerSyntaxError with a message. */
function parseEverywhere(marker: string): void {
  for (const target of TARGETS) {
    const found = lookupMarker(marker, target);
    if (found.kind !== 'found') continue;
    try {
      parseMarkerArguments(marker, found.definedName, found.definition.shape);
    } catch (err) {
      if (!(err instanceof MarkerSyntaxError)) throw err;
      expect(err.message).not.toBe('');
      expect(err.offset).toBeGreaterThanOrEqual(0);
    }
  }
}

describe('fuzzing the marker grammar', () => {
  it('builds a corpus of a marker line per registered marker that parses as written', () => {
    expect(CORPUS.length).toBeGreaterThan(definitions.length);
    for (const line of CORPUS.slice(0, definitions.length)) {
      const info = collectFile('/p/api/v1/corpus.ts', `// ${line}\n\nexport type X = string;\n`);
      expect(info.diagnostics.items.filter((d) => !d.message.includes('cannot stand'))).toEqual([]);
    }
  });

  it('parses or reports every mutated marker, as text and in a file, within bounds', async () => {
    const stats = await fuzz<MarkerCase>({
      name: 'marker grammar',
      iterations: 4_000,
      budgetMs: 15_000,
      callLimitMs: 2_000,
      generate(r) {
        const marker = mutateText(r, r.pick(CORPUS), r.pick(CORPUS));
        return { marker, file: fileWith(r, marker) };
      },
      check({ marker, file }) {
        parseEverywhere(marker);
        const info = collectFile('/p/api/v1/fuzz_types.ts', file);
        for (const d of info.diagnostics.items) {
          expect(d.message).not.toBe('');
          expect(d.line).toBeGreaterThanOrEqual(1);
          expect(d.column).toBeGreaterThanOrEqual(1);
        }
      },
      describe: ({ marker }) => JSON.stringify(marker),
    });
    console.log(summary('marker grammar', stats));
    expect(stats.cases).toBeGreaterThan(0);
  });
});
