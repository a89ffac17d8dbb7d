// Layering, enforced (see ../shared/design/style.md): the contract imports nothing of ours and no
// platform; the renderer imports only the contract (and the bridge client); the engine never imports
// electron; better-sqlite3 only in the store; ipcRenderer only in the preload.
import tseslint from 'typescript-eslint';

const noPlatform = ['electron', 'node:*', 'better-sqlite3', 'ws', 'fs', 'path', 'child_process'];

export default tseslint.config(
  { ignores: ['node_modules/**', 'out/**', 'dist/**', 'native/nvml/build/**', 'fixtures/demo/**', 'test-results/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    files: ['electron/contract/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [...noPlatform, '../engine/*', '../main/*', '../preload/*', '../bridge/*', '**/renderer/**'] }] },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    rules: { 'no-restricted-imports': ['error', { patterns: [...noPlatform, '**/electron/engine/**', '**/electron/main/**', '**/electron/preload/**'] }] },
  },
  {
    files: ['electron/engine/**/*.ts', 'electron/cli/**/*.ts', 'electron/bridge/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: ['electron'], patterns: ['**/main/*', '**/preload/*', '**/renderer/**'] }] },
  },
  {
    files: ['electron/engine/**/*.ts'],
    ignores: ['electron/engine/store/**'],
    rules: { 'no-restricted-imports': ['error', { paths: ['electron', 'better-sqlite3'], patterns: ['**/main/*', '**/preload/*', '**/renderer/**'] }] },
  },
  {
    files: ['electron/main/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['**/engine/**', '**/renderer/**', '**/preload/**', 'better-sqlite3'] }] },
  },
);
