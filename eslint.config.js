// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'templates/**', 'test/fixtures/**', 'bench/out/**', 'quickstart-operator/**', 'docs/.vitepress/dist/**', 'docs/.vitepress/cache/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', setImmediate: 'readonly', URL: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', Buffer: 'readonly', fetch: 'readonly', performance: 'readonly', structuredClone: 'readonly', queueMicrotask: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
);
