import { describe, expect, it } from 'vitest';
import { APP_VERSION_SWITCH, mainWindowOptions, remotePeerWindowOptions } from './window-options.ts';

describe('mainWindowOptions', () => {
  const options = mainWindowOptions({ preloadPath: '/app/out/preload/index.cjs', appVersion: '1.2.3' });
  const prefs = options.webPreferences ?? {};

  it('isolates and sandboxes the renderer, without Node.js', () => {
    expect(prefs.contextIsolation).toBe(true);
    expect(prefs.sandbox).toBe(true);
    expect(prefs.nodeIntegration).toBe(false);
    expect(prefs.nodeIntegrationInWorker).toBe(false);
    expect(prefs.nodeIntegrationInSubFrames).toBe(false);
  });

  it('keeps web security on and refuses insecure content and <webview>', () => {
    expect(prefs.webSecurity).toBe(true);
    expect(prefs.allowRunningInsecureContent).toBe(false);
    expect(prefs.webviewTag).toBe(false);
  });

  it('loads the given preload script and hands it the app version', () => {
    expect(prefs.preload).toBe('/app/out/preload/index.cjs');
    expect(prefs.additionalArguments).toEqual([`${APP_VERSION_SWITCH}1.2.3`]);
  });

  it('stays hidden until its first paint is ready', () => {
    expect(options.show).toBe(false);
  });
});

describe('remotePeerWindowOptions', () => {
  const options = remotePeerWindowOptions('register 2');
  const prefs = options.webPreferences ?? {};

  it('shows another peer’s page sandboxed like the main window, with no preload and so no way into this app', () => {
    expect(prefs.preload).toBeUndefined();
    expect(prefs.additionalArguments).toBeUndefined();
    expect([prefs.contextIsolation, prefs.sandbox, prefs.nodeIntegration, prefs.webSecurity, prefs.webviewTag]).toEqual([true, true, false, true, false]);
    expect(options.title).toBe('SyncMesh — register 2');
    expect(options.show).toBe(false);
  });
});
