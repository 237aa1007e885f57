import type { BrowserWindowConstructorOptions } from 'electron';

/**
 * The command-line switch that carries the app's version to the preload script, which cannot
 * read `package.json` from its sandbox. `src/preload/index.ts` reads the same switch.
 */
export const APP_VERSION_SWITCH = '--syncmesh-app-version=';

/** What the main window's options depend on. */
export interface MainWindowInputs {
  /** Absolute path of the built, sandbox-compatible (CommonJS) preload script. */
  readonly preloadPath: string;
  /** The app's version, as `app.getVersion()` reports it. */
  readonly appVersion: string;
}

/**
 * Options of the inspector window. The renderer gets no Node.js and no Electron internals:
 * it runs sandboxed, in its own JavaScript world, and reaches the main process only through
 * what the preload script exposes with `contextBridge`.
 */
export function mainWindowOptions({ preloadPath, appVersion }: MainWindowInputs): BrowserWindowConstructorOptions {
  return {
    width: 1200,
    height: 800,
    minWidth: 640,
    minHeight: 400,
    title: 'SyncMesh',
    // Shown on 'ready-to-show', so that the window never flashes empty.
    show: false,
    autoHideMenuBar: true,
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      additionalArguments: [`${APP_VERSION_SWITCH}${appVersion}`],
    },
  };
}

/**
 * Options of a window showing another peer's inspector ("Connect to a running peer"): the page
 * that peer serves, with no preload at all (it talks to its own peer over its WebSocket, never to
 * this app), sandboxed like the main window.
 */
export function remotePeerWindowOptions(label: string): BrowserWindowConstructorOptions {
  const { webPreferences, ...rest } = mainWindowOptions({ preloadPath: '', appVersion: '' });
  const { preload: _preload, additionalArguments: _arguments, ...isolated } = webPreferences ?? {};
  return { ...rest, title: `SyncMesh — ${label}`, webPreferences: isolated };
}
