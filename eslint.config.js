// Lint: typescript-eslint's recommended rules for every TypeScript file, plus the rule
// that keeps `electron` out of code that must run under plain Node (architecture.md).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['test/.tmp/**', 'scratch/**', 'out/**', 'dist/**', 'node_modules/**', 'coverage/**', 'test-results/**', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    ignores: ['src/main/index.ts', 'src/main/electron/**', 'src/preload/**'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: 'Only the Electron glue (src/main/index.ts, src/main/electron/, src/preload/) may import electron.' }] }],
    },
  },
);
