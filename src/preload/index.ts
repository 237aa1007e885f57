/**
 * Preload script of the inspector window. It runs sandboxed (a CommonJS bundle with a limited
 * `require` and a reduced `process`), and exposes exactly the contract's `DesktopApi` on
 * `window.syncmesh`: the app's versions and the inspector bridge (desktop-api.ts). Nothing of
 * Electron or Node.js reaches the page. Its shape is declared for the renderer in
 * `src/renderer/src/env.d.ts`.
 */
import { contextBridge, ipcRenderer } from 'electron';
import type { DesktopApi } from '../shared/inspector/contract.ts';
import { createDesktopApi } from './desktop-api.ts';

/**
 * Set by the main process through `webPreferences.additionalArguments`; the same switch as
 * `APP_VERSION_SWITCH` in `src/main/window-options.ts` (the preload may not import from main).
 */
const APP_VERSION_SWITCH = '--syncmesh-app-version=';

function appVersion(): string {
  const argument = process.argv.find((arg) => arg.startsWith(APP_VERSION_SWITCH));
  return argument === undefined ? 'unknown' : argument.slice(APP_VERSION_SWITCH.length);
}

const versions = {
  app: appVersion(),
  electron: process.versions.electron ?? 'unknown',
  chrome: process.versions.chrome ?? 'unknown',
  node: process.versions.node,
};

contextBridge.exposeInMainWorld('syncmesh', createDesktopApi(ipcRenderer, versions) satisfies DesktopApi);
