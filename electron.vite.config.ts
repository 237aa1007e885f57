import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';
import { testHarnessGuard } from './scripts/test-harness-guard.ts';
import { contentSecurityPolicy } from './src/main/content-security-policy.ts';

/**
 * Adds the Content-Security-Policy meta tag to index.html: the strict policy in the build,
 * the dev server's policy (which lets Vite's inline dev code run) under `electron-vite dev`.
 */
function contentSecurityPolicyMeta(): Plugin {
  return {
    name: 'syncmesh:content-security-policy',
    transformIndexHtml(_html, context) {
      const mode = context.server === undefined ? 'production' : 'development';
      return [
        {
          tag: 'meta',
          attrs: { 'http-equiv': 'Content-Security-Policy', content: contentSecurityPolicy(mode) },
          injectTo: 'head-prepend',
        },
      ];
    },
  };
}

/** Packages with native code or Node-only internals: loaded from node_modules at run time. */
const MAIN_EXTERNALS = ['better-sqlite3', 'ws', 'bonjour-service'];

export default defineConfig({
  // out/main/index.js, an ES module ("type": "module"); package.json "main" points at it.
  main: {
    plugins: [testHarnessGuard()],
    build: {
      outDir: 'out/main',
      lib: { entry: 'src/main/index.ts' },
      externalizeDeps: { include: MAIN_EXTERNALS },
    },
  },
  // out/preload/index.cjs: a sandboxed preload must be a single CommonJS file, so it is
  // forced to "cjs" and nothing is left external but `electron` itself.
  preload: {
    plugins: [testHarnessGuard()],
    build: {
      outDir: 'out/preload',
      lib: { entry: 'src/preload/index.ts', formats: ['cjs'] },
      externalizeDeps: false,
    },
  },
  // out/renderer/index.html and its assets.
  renderer: {
    // Relative asset URLs: the same build loads from file:// in Electron and under /<token>/ in a browser.
    base: './',
    root: 'src/renderer',
    plugins: [react(), contentSecurityPolicyMeta(), testHarnessGuard()],
    build: {
      outDir: 'out/renderer',
    },
  },
});
