// Code style. The layering (which folder may import what) is an allow-list checked by
// scripts/check-layers.ts, the second half of `npm run lint` (table: scripts/layers.ts; docs/architecture.md §2).
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'out/**', 'dist/**', 'native/nvml/build/**', 'fixtures/demo/**', 'test-results/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
);
