// @ts-check
import js from '@eslint/js';
import jsdoc from 'eslint-plugin-jsdoc';
import tseslint from 'typescript-eslint';
import { publicApiFiles } from './scripts/lib/public-api.js';

// A public member of a class: not `private` and not an ECMAScript #private name.
const publicMember = ':not([accessibility="private"]):not([key.type="PrivateIdentifier"])';

export default tseslint.config(
  { ignores: ['dist/**', 'src/*/dist/**', 'node_modules/**', 'coverage/**', 'templates/**', 'test/fixtures/**', 'bench/out/**', 'quickstart-operator/**', 'docs/.vitepress/dist/**', 'docs/.vitepress/cache/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', setImmediate: 'readonly', URL: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', Buffer: 'readonly', fetch: 'readonly', performance: 'readonly', structuredClone: 'readonly', queueMicrotask: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Every export of the public entry points (package.json "exports": kubescaffold/runtime, runtime/*, envtest) has a
    // doc comment: it is what the API reference (docs/reference/api, TypeDoc) shows. ESLint sees one file at a time,
    // so it cannot follow `export { X } from './x.js'` from an index.ts to X; publicApiFiles() does, before linting:
    // the entry points and every module they re-export from, transitively. In those modules every exported
    // declaration (publicOnly) needs a doc comment: functions, classes, interfaces, type aliases, enums, exported
    // consts, the public methods and fields of exported classes, and the methods and properties of exported
    // interfaces (not of inline object types). A module re-exported only in part is checked whole: an export there is
    // one import path away from being public. Blank /** */ blocks do not count, and there is no autofix (it would
    // write empty blocks).
    files: publicApiFiles(),
    plugins: { jsdoc },
    rules: {
      'jsdoc/require-jsdoc': ['error', {
        publicOnly: { esm: true, cjs: false, ancestorsOnly: false },
        enableFixer: false,
        require: { FunctionDeclaration: true, ClassDeclaration: true, MethodDefinition: false, ArrowFunctionExpression: false, FunctionExpression: false, ClassExpression: false },
        checkConstructors: false,
        contexts: [
          'TSInterfaceDeclaration',
          'TSTypeAliasDeclaration',
          'TSEnumDeclaration',
          'TSDeclareFunction',
          'Program > VariableDeclaration',
          'ExportNamedDeclaration > VariableDeclaration',
          `MethodDefinition${publicMember}:not([kind="constructor"])`,
          `PropertyDefinition${publicMember}`,
          'TSMethodSignature',
          'TSInterfaceBody > TSPropertySignature',
        ],
      }],
      'jsdoc/no-blank-blocks': ['error', { enableFixer: false }],
      // require-jsdoc does not connect `const x = ...; export { x }` (or an interface exported that way) with its
      // declaration, so such an export would escape it: export the declaration itself instead.
      'no-restricted-syntax': ['error', {
        selector: 'ExportNamedDeclaration[source=null][declaration=null]',
        message: 'In the public API, export the declaration itself (export const / function / interface ...) so its doc comment is checked.',
      }],
    },
  },
);
