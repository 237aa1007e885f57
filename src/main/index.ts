/**
 * Electron main process: the app's lifecycle, its peer and its one window. The peer (with the Big
 * Peer of settings.json, or the local Big Peer on first run; persistence in the user-data folder)
 * starts before the window; the inspector's IPC handlers serve the window; other peers'
 * inspectors open in windows of their own ("Connect to a running peer", remote-peers.ts);
 * quitting closes the peer and the local Big Peer before the process exits.
 */
import { app, BrowserWindow, dialog, ipcMain, session } from 'electron';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { registerInspectorIpc, type InspectorIpc } from './ipc-bridge.ts';
import { isAppUrl, isLoopbackHttpUrl } from './navigation.ts';
import { startPeerHost, type PeerHost } from './peer-host.ts';
import { RemotePeerList, registerRemotePeersIpc } from './remote-peers.ts';
import { mainWindowOptions, remotePeerWindowOptions } from './window-options.ts';
import { errorMessage } from '../shared/error-message.ts';

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

/** The windows of other peers' inspectors ("Connect to a running peer"), by their URL; and each one's own URL by its web contents. */
const remoteWindows = new Map<string, BrowserWindow>();
const remotePages = new Map<number, string>();

/** Opens (or brings forward) the window of another peer's inspector; rejects when its page does not load. */
async function openRemotePeerWindow(url: string, label: string): Promise<void> {
  const existing = remoteWindows.get(url);
  if (existing !== undefined && !existing.isDestroyed()) {
    existing.show();
    existing.focus();
    return;
  }
  const window = new BrowserWindow(remotePeerWindowOptions(label));
  const contentsId = window.webContents.id;
  remoteWindows.set(url, window);
  remotePages.set(contentsId, url);
  window.on('closed', () => {
    remoteWindows.delete(url);
    remotePages.delete(contentsId);
  });
  window.once('ready-to-show', () => window.show());
  try {
    await window.loadURL(url);
  } catch (error) {
    window.destroy();
    throw error;
  }
}

/** May these web contents show `url`: the app's own page, or for another peer's window, that peer's origin. */
function mayShow(contentsId: number, url: string): boolean {
  const remote = remotePages.get(contentsId);
  return remote === undefined ? isAppUrl(url, appUrl) : isAppUrl(url, remote);
}

// Every web contents (the window, and anything it might try to open) stays on its page.
app.on('web-contents-created', (_event, contents) => {
  contents.on('will-navigate', (event) => {
    if (!mayShow(contents.id, event.url)) event.preventDefault();
  });
  contents.on('will-redirect', (event) => {
    if (!mayShow(contents.id, event.url)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  // A single-window app: no popups, not even of its own page.
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
});

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});

let host: PeerHost | undefined;
let bridge: InspectorIpc | undefined;
let shutDown = false;

// Quitting waits for the peer's shutdown (its store and the local Big Peer close cleanly).
app.on('will-quit', (event) => {
  if (shutDown || host === undefined) return;
  event.preventDefault();
  shutDown = true;
  bridge?.dispose();
  host
    .close()
    .catch((error: unknown) => console.error('SyncMesh could not close its peer cleanly:', error))
    .finally(() => app.quit());
});

async function start(): Promise<void> {
  // The inspector needs no camera, notifications, geolocation, ...: refuse every request.
  session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  try {
    host = await startPeerHost({ userDataDir: app.getPath('userData') });
  } catch (error) {
    const message = errorMessage(error);
    dialog.showErrorBox('SyncMesh cannot start its peer', message);
    app.exit(1);
    return;
  }
  const started = host;
  void started.started.then((error) => {
    if (error !== undefined) console.error(`SyncMesh: sync did not start (${error.code}): ${error.message}`);
  });
  // Only the app's own page may use the inspector, and open other peers'.
  const isTrustedSender = (event: { readonly senderFrame?: { readonly url: string } | null }): boolean =>
    event.senderFrame != null && isAppUrl(event.senderFrame.url, appUrl);
  bridge = registerInspectorIpc({ ipcMain, inspector: started.inspector, isTrustedSender });
  registerRemotePeersIpc({ ipcMain, list: new RemotePeerList(app.getPath('userData')), openWindow: openRemotePeerWindow, isTrustedSender });
  createMainWindow();
  // macOS: clicking the dock icon with no window open reopens one.
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createMainWindow();
  });
}

// One instance per user-data folder: a second one would find the peer's store locked.
if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    const [window] = BrowserWindow.getAllWindows();
    if (window === undefined) return;
    if (window.isMinimized()) window.restore();
    window.focus();
  });
  app
    .whenReady()
    .then(start)
    .catch((error: unknown) => {
      console.error('SyncMesh failed to start:', error);
      app.exit(1);
    });
}
