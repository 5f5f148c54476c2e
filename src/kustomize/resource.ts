import { effectiveNamespace, isClusterScoped, parseApiVersion, type Gvk, type ResId } from './resid.js';
import { isObject, stringField, type JSONObject } from './values.js';

export type GenerationBehavior = 'create' | 'merge' | 'replace';

interface PreviousId {
  name: string;
  namespace: string;
  kind: string;
}

/**
 * One object in a build, plus the bookkeeping kustomize keeps in build annotations: every name it had (so references
 * can be fixed after prefixes and hashes change names) and which prefixes and suffixes were added.
 */
export class Resource {
  obj: JSONObject;
  /** Where the object came from, for error messages. */
  readonly source: string;
  prefixes: string[] = [];
  suffixes: string[] = [];
  private previous: PreviousId[] = [];
  needsHashSuffix = false;
  behavior: GenerationBehavior = 'create';
  allowNameChange = false;
  allowKindChange = false;

  constructor(obj: JSONObject, source: string) {
    this.obj = obj;
    this.source = source;
  }

  get apiVersion(): string {
    return stringField(this.obj, 'apiVersion');
  }

  get kind(): string {
    return stringField(this.obj, 'kind');
  }

  set kind(kind: string) {
    this.obj.kind = kind;
  }

  get name(): string {
    return stringField(this.obj, 'metadata', 'name');
  }

  set name(name: string) {
    this.metadata().name = name;
  }

  get namespace(): string {
    return stringField(this.obj, 'metadata', 'namespace');
  }

  set namespace(ns: string) {
    if (ns === '') {
      const md = this.obj.metadata;
      if (isObject(md)) delete md.namespace;
      return;
    }
    this.metadata().namespace = ns;
  }

  gvk(): Gvk {
    return { ...parseApiVersion(this.apiVersion), kind: this.kind };
  }

  curId(): ResId {
    const gvk = this.gvk();
    return { gvk, name: this.name, namespace: this.namespace, clusterScoped: isClusterScoped(gvk) };
  }

  /** Every earlier id, oldest first. kustomize rebuilds them with the current apiVersion and never as cluster-scoped. */
  prevIds(): ResId[] {
    const { group, version } = parseApiVersion(this.apiVersion);
    return this.previous.map((p) => ({ gvk: { group, version, kind: p.kind }, name: p.name, namespace: p.namespace, clusterScoped: false }));
  }

  orgId(): ResId {
    return this.prevIds()[0] ?? this.curId();
  }

  allIds(): ResId[] {
    return [...this.prevIds(), this.curId()];
  }

  storePreviousId(): void {
    const id = this.curId();
    this.previous.push({ name: id.name, namespace: effectiveNamespace(id), kind: id.gvk.kind });
  }

  labels(): Record<string, string> {
    return stringMap(isObject(this.obj.metadata) ? this.obj.metadata.labels : undefined);
  }

  annotations(): Record<string, string> {
    return stringMap(isObject(this.obj.metadata) ? this.obj.metadata.annotations : undefined);
  }

  metadata(): JSONObject {
    if (!isObject(this.obj.metadata)) this.obj.metadata = {};
    return this.obj.metadata as JSONObject;
  }

  isEmpty(): boolean {
    return Object.keys(this.obj).length === 0;
  }

  copy(): Resource {
    const r = new Resource(structuredClone(this.obj), this.source);
    r.copyBookkeepingFrom(this);
    return r;
  }

  copyBookkeepingFrom(other: Resource): void {
    this.prefixes = [...other.prefixes];
    this.suffixes = [...other.suffixes];
    this.previous = other.previous.map((p) => ({ ...p }));
    this.needsHashSuffix = other.needsHashSuffix;
    this.behavior = other.behavior;
    this.allowNameChange = other.allowNameChange;
    this.allowKindChange = other.allowKindChange;
  }

  describe(): string {
    const ns = this.namespace;
    return `${this.kind}/${this.name}${ns ? ` (namespace ${ns})` : ''} from ${this.source}`;
  }
}

function stringMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isObject(v)) return out;
  for (const [k, val] of Object.entries(v)) {
    if (typeof val === 'string') out[k] = val;
    else if (typeof val === 'number' || typeof val === 'boolean') out[k] = String(val);
  }
  return out;
}
