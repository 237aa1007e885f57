/**
 * Electron main process: the app's lifecycle and its one window. The peer will be hosted here
 * (and the inspector's IPC handlers registered) in a later step.
 */
import { app, BrowserWindow, session } from 'electron';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isAppUrl, isLoopbackHttpUrl } from './navigation.ts';
import { mainWindowOptions } from './window-options.ts';

/** The built renderer page, beside this file's folder in `out/`. */
const rendererIndexPath = join(import.meta.dirname, '../renderer/index.html');
/**
 * The built preload script. electron-vite writes it as CommonJS (`.cjs`): a sandboxed preload
 * cannot be an ES module.
 */
const preloadPath = join(import.meta.dirname, '../preload/index.cjs');
/**
 * `electron-vite dev` sets ELECTRON_RENDERER_URL to its dev server. A packaged app ignores it,
 * and a dev server is accepted only on loopback, so that no environment variable can point the
 * window at remote content.
 */
const devServerUrl = app.isPackaged ? undefined : acceptedDevServerUrl(process.env['ELECTRON_RENDERER_URL']);
/** The only page the window may show. */
const appUrl = devServerUrl ?? pathToFileURL(rendererIndexPath).href;

function acceptedDevServerUrl(url: string | undefined): string | undefined {
  if (url === undefined || isLoopbackHttpUrl(url)) return url;
  console.error(`Ignoring ELECTRON_RENDERER_URL=${url}: a dev server must be on loopback.`);
  return undefined;
}

function createMainWindow(): BrowserWindow {
  const window = new BrowserWindow(mainWindowOptions({ preloadPath, appVersion: app.getVersion() }));
  window.once('ready-to-show', () => window.show());
  const loaded = devServerUrl === undefined ? window.loadFile(rendererIndexPath) : window.loadURL(devServerUrl);
  loaded.catch((error: unknown) => {
    console.error(`SyncMesh could not load its window from ${appUrl}:`, error);
  });
  return window;
}

// Every web contents (the window, and anything it might try to open) stays on the app's page.
app.on('web-contents-created', (_event, contents) => {
  contents.on('will-navigate', (event) => {
    if (!isAppUrl(event.url, appUrl)) event.preventDefault();
  });
  contents.on('will-redirect', (event) => {
    if (!isAppUrl(event.url, appUrl)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  // A single-window app: no popups, not even of its own page.
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
});

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});

app
  .whenReady()
  .then(() => {
    // The inspector needs no camera, notifications, geolocation, ...: refuse every request.
    session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
    createMainWindow();
    // macOS: clicking the dock icon with no window open reopens one.
    app.on('activate', () => {
      if (BrowserWindow.getAllWindows().length === 0) createMainWindow();
    });
  })
  .catch((error: unknown) => {
    console.error('SyncMesh failed to start:', error);
    app.exit(1);
  });
