/**
 * Why a type form has no CRD schema, in the words of the TypeScript a user writes: ts.SyntaxKind's names are the
 * compiler's own (an import type is "LastTypeNode", since enum members share values), so they never reach a message.
 */
import type * as T from 'typescript';
import { ts } from '../markers/typescript.js';

const ADVICE = 'write the type out as an interface, union of literals, array or Record';

/** The message for a type node that typeSchema does not turn into a schema. */
export function unsupportedTypeMessage(node: T.TypeNode, source: T.SourceFile): string {
  if (ts.isImportTypeNode(node)) return importTypeMessage(node);
  if (ts.isTypeQueryNode(node))
    return `typeof types (${snippet(node, source)}) are not supported in CRD schemas: declare the type (an interface or alias) and use it by name`;
  if (ts.isIndexedAccessTypeNode(node))
    return `indexed access types (${snippet(node, source)}) are not supported in CRD schemas: give the property's type a name and use that`;
  if (ts.isConditionalTypeNode(node) || ts.isInferTypeNode(node))
    return `conditional types (${snippet(node, source)}) are not supported in CRD schemas: ${ADVICE}`;
  if (ts.isMappedTypeNode(node))
    return `mapped types (${snippet(node, source)}) are not supported in CRD schemas: write an interface, or use Record<string, T> for a map`;
  if (ts.isTypeOperatorNode(node)) {
    const op = node.operator === ts.SyntaxKind.KeyOfKeyword ? 'keyof' : 'unique';
    return `${op} types (${snippet(node, source)}) are not supported in CRD schemas: ${op === 'keyof' ? 'write the keys as a union of string literals' : ADVICE}`;
  }
  if (ts.isThisTypeNode(node)) return `this types are not supported in CRD schemas: use the type by name`;
  if (ts.isTypePredicateNode(node))
    return `type predicates (${snippet(node, source)}) are not supported in CRD schemas: ${ADVICE}`;
  if (node.kind === ts.SyntaxKind.SymbolKeyword) return 'symbol does not survive JSON: use a string';
  if (node.kind === ts.SyntaxKind.IntrinsicKeyword)
    return `intrinsic types are not supported in CRD schemas: ${ADVICE}`;
  return `the type ${snippet(node, source)} is not supported in CRD schemas: ${ADVICE}`;
}

/** import("./x.js").T: the fix is an import by name, which the generator follows. */
function importTypeMessage(node: T.ImportTypeNode): string {
  const arg = node.argument;
  const module = ts.isLiteralTypeNode(arg) && ts.isStringLiteral(arg.literal) ? arg.literal.text : '…';
  const name = node.qualifier ? qualifiedName(node.qualifier) : undefined;
  const head = name?.split('.')[0];
  const fix = head === undefined ? `import type * as m from '${module}'` : `import type { ${head} } from '${module}'`;
  return `import("${module}")${name === undefined ? '' : `.${name}`} types are not supported; import the type by name (${fix}) and use ${name ?? 'it'}`;
}

function qualifiedName(name: T.EntityName): string {
  return ts.isIdentifier(name) ? name.text : `${qualifiedName(name.left)}.${name.right.text}`;
}

/** The node's text, shortened to one line of at most 60 characters. */
function snippet(node: T.Node, source: T.SourceFile): string {
  const text = node.getText(source).replace(/\s+/g, ' ');
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
