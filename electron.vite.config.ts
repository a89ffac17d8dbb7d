// Builds main (CJS), the engine's utility-process entry (CJS), the preload (CJS, so the sandbox stays
// on) and the renderer. Native and Node dependencies stay external to the main/engine bundles.
import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

const cjs = { format: 'cjs' as const, entryFileNames: '[name].cjs' };

export default defineConfig({
  main: {
    build: {
      outDir: 'out',
      emptyOutDir: false,
      rollupOptions: {
        input: { 'main/index': resolve('electron-main/index.ts'), 'engine/host': resolve('node/engine/host.ts') },
        output: cjs,
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      rollupOptions: { input: { index: resolve('electron-preload/index.ts') }, output: cjs },
    },
  },
  renderer: {
    root: 'browser/renderer',
    plugins: [react()],
    base: './',
    build: {
      outDir: 'out/renderer',
      emptyOutDir: true,
      rollupOptions: { input: resolve('browser/renderer/index.html') },
    },
  },
});
