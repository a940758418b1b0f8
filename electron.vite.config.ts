import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.dirname(fileURLToPath(import.meta.url));

/**
 * After the main bundle, build the engine's utility-process entry with the CLI's esbuild recipe
 * (ESM, dependencies external, filter workers copied beside it) into out/engine.
 */
const engineBundle = {
  name: 'trawl-engine-bundle',
  apply: 'build' as const,
  async closeBundle() {
    const { buildCli } = (await import(pathToFileURL(path.join(root, 'scripts', 'build-cli.mjs')).href)) as {
      buildCli(o: { outdir: string; extraEntries: string[] }): Promise<string>;
    };
    await buildCli({
      outdir: path.join(root, 'out', 'engine'),
      extraEntries: [path.join(root, 'src', 'main', 'engine-process.ts')],
    });
  },
};

export default defineConfig({
  main: {
    plugins: [engineBundle],
    build: {
      outDir: 'out/main',
      rollupOptions: {
        input: { index: path.join(root, 'src/main/index.ts') },
        // ESM (the package is "type": "module"); package.json "main" points at out/main/index.js.
        output: { format: 'es', entryFileNames: '[name].js' },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      // The sandboxed preload cannot require() packages: bundle everything into one CommonJS file.
      externalizeDeps: false,
      rollupOptions: {
        input: { index: path.join(root, 'src/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: 'src/renderer',
    base: './',
    plugins: [react()],
    build: {
      outDir: 'out/renderer',
      minify: true,
      modulePreload: { polyfill: false },
      rollupOptions: { input: path.join(root, 'src/renderer/index.html') },
    },
  },
});
