import { KustomizeError } from '../errors.js';
import type { Selector } from '../kustomization.js';
import { effectiveNamespace } from '../resid.js';
import type { Resource } from '../resource.js';

type Requirement = (labels: Record<string, string>) => boolean;

/** Parses a Kubernetes label selector (a=b, a!=b, a in (x,y), a notin (x), a, !a, a>1, a<1) into a predicate. */
export function parseLabelSelector(text: string, where: string): Requirement {
  const tokens = tokenize(text, where);
  const reqs: Requirement[] = [];
  let i = 0;
  const fail = (msg: string): never => {
    throw new KustomizeError(`${where}: invalid selector "${text}": ${msg}`);
  };
  const next = () => tokens[i++];
  while (i < tokens.length) {
    let tok = next()!;
    if (tok === '!') {
      const key = next();
      if (!key || isOp(key)) fail('expected a key after !');
      reqs.push((l) => !(key! in l));
    } else {
      if (isOp(tok)) fail(`unexpected "${tok}"`);
      const key = tok;
      const op = tokens[i];
      if (op === undefined || op === ',') {
        reqs.push((l) => key in l);
      } else if (op === '=' || op === '==' || op === '!=') {
        i++;
        const value = tokens[i] === undefined || tokens[i] === ',' ? '' : next()!;
        if (op === '!=') reqs.push((l) => l[key] !== value);
        else reqs.push((l) => l[key] === value);
      } else if (op === 'in' || op === 'notin') {
        i++;
        if (next() !== '(') fail(`expected ( after ${op}`);
        const values: string[] = [];
        for (tok = next()!; tok !== ')'; tok = next()!) {
          if (tok === undefined) fail('missing )');
          if (tok !== ',') values.push(tok);
        }
        if (op === 'in') reqs.push((l) => key in l && values.includes(l[key]!));
        else reqs.push((l) => !(key in l) || !values.includes(l[key]!));
      } else if (op === '>' || op === '<') {
        i++;
        const n = Number(next());
        if (!Number.isInteger(n)) fail(`expected an integer after ${op}`);
        reqs.push(
          (l) => key in l && Number.isInteger(Number(l[key])) && (op === '>' ? Number(l[key]) > n : Number(l[key]) < n),
        );
      } else {
        fail(`unexpected "${op}" after ${key}`);
      }
    }
    if (i < tokens.length) {
      if (tokens[i] !== ',') fail(`expected , but found "${tokens[i]}"`);
      i++;
    }
  }
  return (labels) => reqs.every((r) => r(labels));
}

function isOp(t: string): boolean {
  return ['=', '==', '!=', '(', ')', ',', '!', '>', '<'].includes(t);
}

function tokenize(text: string, where: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '=' || c === '!') {
      if (text[i + 1] === '=') {
        out.push(c + '=');
        i += 2;
      } else {
        out.push(c);
        i++;
      }
    } else if ('(),<>'.includes(c)) {
      out.push(c);
      i++;
    } else {
      let j = i;
      while (j < text.length && !/[\s=!(),<>]/.test(text[j]!)) j++;
      if (j === i) throw new KustomizeError(`${where}: invalid selector "${text}"`);
      out.push(text.slice(i, j));
      i = j;
    }
  }
  return out;
}

function anchored(pattern: string, where: string): RegExp | undefined {
  if (pattern === '') return undefined;
  try {
    return new RegExp(`^(?:${pattern})$`);
  } catch (e) {
    throw new KustomizeError(`${where}: invalid regular expression "${pattern}": ${(e as Error).message}`);
  }
}

/** kustomize's ResMap.Select: name and namespace match the original or the current id; group/version/kind are regexps. */
export function selectResources(resources: Resource[], s: Selector, where: string): Resource[] {
  const group = anchored(s.gvk.group ?? '', where);
  const version = anchored(s.gvk.version ?? '', where);
  const kind = anchored(s.gvk.kind ?? '', where);
  const name = anchored(s.name, where);
  const namespace = anchored(s.namespace, where);
  const labels = s.labelSelector ? parseLabelSelector(s.labelSelector, where) : undefined;
  const annotations = s.annotationSelector ? parseLabelSelector(s.annotationSelector, where) : undefined;
  return resources.filter((r) => {
    const cur = r.curId();
    const org = r.orgId();
    if (namespace && !namespace.test(effectiveNamespace(org)) && !namespace.test(effectiveNamespace(cur))) return false;
    if (name && !name.test(org.name) && !name.test(cur.name)) return false;
    const gvk = r.gvk();
    if (group && !group.test(gvk.group)) return false;
    if (version && !version.test(gvk.version)) return false;
    if (kind && !kind.test(gvk.kind)) return false;
    if (labels && !labels(r.labels())) return false;
    if (annotations && !annotations(r.annotations())) return false;
    return true;
  });
}

/** Label and annotation selectors alone (replacement targets use ids separately). */
export function matchesLabelAndAnnotationSelectors(r: Resource, s: Selector, where: string): boolean {
  if (s.labelSelector && !parseLabelSelector(s.labelSelector, where)(r.labels())) return false;
  if (s.annotationSelector && !parseLabelSelector(s.annotationSelector, where)(r.annotations())) return false;
  return true;
}
