// Layering, enforced (see docs/architecture.md §2): the contract imports nothing of ours and no
// platform; common/ (names and formatters shared by the workstation and the report) imports only the
// contract; the renderer imports only the contract, common/ (and the bridge client); the engine never
// imports electron; better-sqlite3 only in the store; ipcRenderer only in the preload.
import tseslint from 'typescript-eslint';

const platformModules = ['electron', 'better-sqlite3', 'ws', 'fs', 'path', 'child_process', 'os'];

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
    files: ['common/contract/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: platformModules, patterns: ['node:*', '../engine/*', '../main/*', '../preload/*', '../bridge/*', '**/renderer/**'] }] },
  },
  {
    files: ['common/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: platformModules, patterns: ['node:*', '**/node/engine/**', '**/electron-main/**', '**/electron-preload/**', '**/node/bridge/**', '**/node/cli/**', '**/renderer/**'] }] },
  },
  {
    files: ['browser/renderer/**/*.{ts,tsx}'],
    rules: { 'no-restricted-imports': ['error', { paths: platformModules, patterns: ['node:*', '**/node/engine/**', '**/electron-main/**', '**/electron-preload/**', '**/node/cli/**'] }] },
  },
  {
    files: ['node/engine/**/*.ts', 'node/cli/**/*.ts', 'node/bridge/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: ['electron'], patterns: ['**/main/*', '**/preload/*', '**/renderer/**'] }] },
  },
  {
    files: ['node/engine/**/*.ts'],
    ignores: ['node/engine/store/**'],
    rules: { 'no-restricted-imports': ['error', { paths: ['electron', 'better-sqlite3'], patterns: ['**/main/*', '**/preload/*', '**/renderer/**'] }] },
  },
  {
    files: ['electron-main/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: ['better-sqlite3'], patterns: ['**/engine/**', '**/renderer/**', '**/preload/**'] }] },
  },
  {
    // The NVML addon is reached only through the live module.
    files: ['electron/**/*.ts'],
    ignores: ['node/engine/live/**'],
    rules: { 'no-restricted-syntax': ['error', { selector: "ImportDeclaration[source.value=/native\\/nvml/]", message: 'the NVML addon is used only by node/engine/live' }] },
  },
);
