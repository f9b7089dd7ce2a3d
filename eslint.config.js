// Lint: typescript-eslint's recommended rules for every TypeScript file, plus the rules
// that keep `electron` out of code that must run under plain Node, and the runtime (which
// loads and runs project code) out of the studio, which talks to it only through
// src/shared/runtime-contract.ts (architecture.md).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';

const noElectron = { name: 'electron', message: 'Only the Electron glue (src/main/index.ts, src/main/electron/, src/preload/) may import electron.' };
const noRuntime = {
  group: ['**/runtime/**', '!**/shared/runtime-contract*'],
  message: 'Project code runs only in the runtime process: the studio talks to it through src/shared/runtime-contract.ts.',
};

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
    files: ['src/renderer/**/*.ts', 'src/renderer/**/*.tsx'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
  },
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    ignores: ['src/main/index.ts', 'src/main/electron/**', 'src/preload/**'],
    rules: { 'no-restricted-imports': ['error', { paths: [noElectron] }] },
  },
  {
    files: ['src/main/studio/**', 'src/main/playground/**', 'src/renderer/**', 'src/shared/**'],
    rules: { 'no-restricted-imports': ['error', { paths: [noElectron], patterns: [noRuntime] }] },
  },
  {
    files: ['src/main/index.ts', 'src/main/electron/**', 'src/preload/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [noRuntime] }] },
  },
);
