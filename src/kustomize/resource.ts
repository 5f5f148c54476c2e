import { effectiveNamespace, isClusterScoped, parseApiVersion, type Gvk, type ResId } from './resid.js';
import { isObject, stringField, type JSONObject } from './values.js';

/** A generator's `behavior:`: create a new object, or merge into or replace an existing one. */
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
  /** The object as it is now, transformed in place. */
  obj: JSONObject;
  /** Where the object came from, for error messages. */
  readonly source: string;
  /** The name prefixes added so far, in the order they were added (kustomize keeps them in a build annotation). */
  prefixes: string[] = [];
  /** The name suffixes added so far, in the order they were added. */
  suffixes: string[] = [];
  private previous: PreviousId[] = [];
  /** Whether the name gets a content-hash suffix at the end of the build (generated ConfigMaps and Secrets). */
  needsHashSuffix = false;
  /** How a generated object combines with an existing one of the same id. */
  behavior: GenerationBehavior = 'create';
  /** Whether a patch may rename the object (the patch's `options.allowNameChange`). */
  allowNameChange = false;
  /** Whether a patch may change the object's kind (the patch's `options.allowKindChange`). */
  allowKindChange = false;

  constructor(obj: JSONObject, source: string) {
    this.obj = obj;
    this.source = source;
  }

  /** The object's apiVersion ('' if it has none). */
  get apiVersion(): string {
    return stringField(this.obj, 'apiVersion');
  }

  /** The object's kind ('' if it has none). */
  get kind(): string {
    return stringField(this.obj, 'kind');
  }

  /** Changes the object's kind. */
  set kind(kind: string) {
    this.obj.kind = kind;
  }

  /** The object's current metadata.name. */
  get name(): string {
    return stringField(this.obj, 'metadata', 'name');
  }

  /** Sets metadata.name, creating metadata if needed. */
  set name(name: string) {
    this.metadata().name = name;
  }

  /** The object's metadata.namespace ('' if it has none). */
  get namespace(): string {
    return stringField(this.obj, 'metadata', 'namespace');
  }

  /** Sets metadata.namespace; '' removes it. */
  set namespace(ns: string) {
    if (ns === '') {
      const md = this.obj.metadata;
      if (isObject(md)) delete md.namespace;
      return;
    }
    this.metadata().namespace = ns;
  }

  /** The object's group, version and kind. */
  gvk(): Gvk {
    return { ...parseApiVersion(this.apiVersion), kind: this.kind };
  }

  /** The object's id as it is now. */
  curId(): ResId {
    const gvk = this.gvk();
    return { gvk, name: this.name, namespace: this.namespace, clusterScoped: isClusterScoped(gvk) };
  }

  /** Every earlier id, oldest first. kustomize rebuilds them with the current apiVersion and never as cluster-scoped. */
  prevIds(): ResId[] {
    const { group, version } = parseApiVersion(this.apiVersion);
    return this.previous.map((p) => ({
      gvk: { group, version, kind: p.kind },
      name: p.name,
      namespace: p.namespace,
      clusterScoped: false,
    }));
  }

  /** The object's original id: the first it had, before any rename. */
  orgId(): ResId {
    return this.prevIds()[0] ?? this.curId();
  }

  /** Every id the object has had, oldest first, ending with the current one. */
  allIds(): ResId[] {
    return [...this.prevIds(), this.curId()];
  }

  /** Remembers the current id before a rename, so name references to it can still be found. */
  storePreviousId(): void {
    const id = this.curId();
    this.previous.push({ name: id.name, namespace: effectiveNamespace(id), kind: id.gvk.kind });
  }

  /** metadata.labels, with non-string scalar values as strings. */
  labels(): Record<string, string> {
    return stringMap(isObject(this.obj.metadata) ? this.obj.metadata.labels : undefined);
  }

  /** metadata.annotations, with non-string scalar values as strings. */
  annotations(): Record<string, string> {
    return stringMap(isObject(this.obj.metadata) ? this.obj.metadata.annotations : undefined);
  }

  /** The object's metadata mapping, created if missing, for writing into. */
  metadata(): JSONObject {
    if (!isObject(this.obj.metadata)) this.obj.metadata = {};
    return this.obj.metadata as JSONObject;
  }

  /** Whether the object has no fields at all (an empty patch or document). */
  isEmpty(): boolean {
    return Object.keys(this.obj).length === 0;
  }

  /** A deep copy of the object, with the same bookkeeping. */
  copy(): Resource {
    const r = new Resource(structuredClone(this.obj), this.source);
    r.copyBookkeepingFrom(this);
    return r;
  }

  /**
   * Takes over another resource's earlier names and ids and its generator and patch settings (a generator merging into
   * or replacing it).
   */
  copyBookkeepingFrom(other: Resource): void {
    this.prefixes = [...other.prefixes];
    this.suffixes = [...other.suffixes];
    this.previous = other.previous.map((p) => ({ ...p }));
    this.needsHashSuffix = other.needsHashSuffix;
    this.behavior = other.behavior;
    this.allowNameChange = other.allowNameChange;
    this.allowKindChange = other.allowKindChange;
  }

  /** Kind, name, namespace and source file, for error messages. */
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
