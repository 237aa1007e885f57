/**
 * Preload script of the inspector window. It runs sandboxed (a CommonJS bundle with a limited
 * `require` and a reduced `process`), and exposes a small, read-only API on
 * `window.syncmesh`. Its shape is declared for the renderer in `src/renderer/src/env.d.ts`.
 */
import { contextBridge } from 'electron';

/**
 * Set by the main process through `webPreferences.additionalArguments`; the same switch as
 * `APP_VERSION_SWITCH` in `src/main/window-options.ts` (the preload may not import from main).
 */
const APP_VERSION_SWITCH = '--syncmesh-app-version=';

function appVersion(): string {
  const argument = process.argv.find((arg) => arg.startsWith(APP_VERSION_SWITCH));
  return argument === undefined ? 'unknown' : argument.slice(APP_VERSION_SWITCH.length);
}

contextBridge.exposeInMainWorld('syncmesh', {
  versions: {
    app: appVersion(),
    electron: process.versions.electron,
    chrome: process.versions.chrome,
    node: process.versions.node,
  },
});
