// @ts-check
import js from '@eslint/js';
import jsdoc from 'eslint-plugin-jsdoc';
import tseslint from 'typescript-eslint';
import { publicApiFiles } from './scripts/lib/public-api.js';

// The public API's modules, read once (it parses the entry points and what they re-export).
const publicFiles = publicApiFiles();

// A public member of a class: not `private` and not an ECMAScript #private name.
const publicMember = ':not([accessibility="private"]):not([key.type="PrivateIdentifier"])';

// require-jsdoc does not connect `const x = ...; export { x }` (or an interface exported that way) with its
// declaration, so such an export would escape it: export the declaration itself instead.
const exportDeclarationItself = {
  selector: 'ExportNamedDeclaration[source=null][declaration=null]',
  message: 'Export the declaration itself (export const / function / interface ...) so its doc comment is checked.',
};

/**
 * A doc comment on every exported declaration (publicOnly): functions, classes, interfaces, type aliases, enums,
 * exported consts, public methods and fields of exported classes, and the `extraContexts` given. Blank blocks do not
 * count, and there is no autofix (it would write empty blocks).
 * @param {string[]} extraContexts
 */
const docCommentRules = (extraContexts = []) => ({
  'jsdoc/require-jsdoc': [
    'error',
    {
      publicOnly: { esm: true, cjs: false, ancestorsOnly: false },
      enableFixer: false,
      require: {
        FunctionDeclaration: true,
        ClassDeclaration: true,
        MethodDefinition: false,
        ArrowFunctionExpression: false,
        FunctionExpression: false,
        ClassExpression: false,
      },
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
        ...extraContexts,
      ],
    },
  ],
  'jsdoc/no-blank-blocks': ['error', { enableFixer: false }],
  'no-restricted-syntax': ['error', exportDeclarationItself],
});

// For the runtime's no-bare-Error block below (at the end of the config).
const noBareErrorMessage = "throw one of the runtime's typed errors (src/runtime/errors.ts), not a bare Error";
const noBareError = [
  { selector: "NewExpression[callee.name='Error']", message: noBareErrorMessage },
  { selector: "CallExpression[callee.name='Error']", message: noBareErrorMessage },
];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'src/*/dist/**',
      'node_modules/**',
      'coverage/**',
      'templates/**',
      'test/fixtures/**',
      'bench/out/**',
      // Scratch space of tests (git-ignored): a bundle a failed run left there is not source.
      '.tmp/**',
      'quickstart-operator/**',
      'docs/.vitepress/dist/**',
      'docs/.vitepress/cache/**',
      // The tutorial's finished project: a project of its own, linted by its own configuration (test/e2e/tutorial.test.ts).
      'docs/tutorial/project/**',
      // The ported operators, each linted by its own configuration (test/examples/*.project.test.ts).
      'examples/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        URL: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        Buffer: 'readonly',
        fetch: 'readonly',
        performance: 'readonly',
        structuredClone: 'readonly',
        queueMicrotask: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Every export of the public entry points (the "exports" of @kubescaffold/runtime and @kubescaffold/envtest) has a
    // doc comment: it is what the API reference (docs/reference/api, TypeDoc) shows. ESLint sees one file at a time,
    // so it cannot follow `export { X } from './x.js'` from an index.ts to X; publicApiFiles() does, before linting:
    // the entry points and every module they re-export from, transitively. In those modules every exported
    // declaration (publicOnly) needs a doc comment: functions, classes, interfaces, type aliases, enums, exported
    // consts, the public methods and fields of exported classes, and the methods and properties of exported
    // interfaces (not of inline object types). A module re-exported only in part is checked whole: an export there is
    // one import path away from being public.
    files: publicFiles,
    plugins: { jsdoc },
    rules: docCommentRules(['TSMethodSignature', 'TSInterfaceBody > TSPropertySignature']),
  },
  {
    // The runtime throws its typed errors (src/runtime/errors.ts: ConfigurationError, LifecycleError, ... each with an
    // isX predicate), never a bare Error a caller cannot test for. A later block's options replace an earlier one's for
    // the same rule, so the public-API files among these repeat the export selector of the block above.
    files: ['src/runtime/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ...noBareError] },
  },
  {
    files: publicFiles.filter((f) => f.startsWith('src/runtime/')),
    rules: {
      'no-restricted-syntax': ['error', exportDeclarationItself, ...noBareError],
    },
  },
  {
    // The generators' modules (markers, crd, rbac, webhookgen, kustomize, generate) are not public API, but they are
    // what a contributor reads first: every exported declaration has a doc comment, as in the public-API block
    // (publicOnly, the same contexts, blank /** */ blocks do not count), except the members of exported interfaces.
    // Those are mostly field lists mirroring a Kubernetes or kustomize type (JSONSchemaProps, Kustomization,
    // PolicyRule), where a comment per field would repeat its name; a field has one where its name is not enough.
    // eslint-plugin-jsdoc's publicOnly counts a method of an exported class as exported only while the class itself
    // has no doc comment, so the methods of a documented class are not checked (as in the public-API block); they have
    // doc comments all the same.
    files: [
      'src/markers/**/*.ts',
      'src/crd/**/*.ts',
      'src/rbac/**/*.ts',
      'src/webhookgen/**/*.ts',
      'src/kustomize/**/*.ts',
      'src/generate/**/*.ts',
    ],
    plugins: { jsdoc },
    rules: docCommentRules(),
  },
);
