import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppSettingsError, parseAppSettings, readAppSettings } from './app-settings.ts';
import { userDataPlan } from './app-peer.ts';

describe('parseAppSettings', () => {
  it('accepts the three fields', () => {
    const settings = { bigPeerUrl: 'https://big-peer.example.com', appId: 'app', playgroundToken: 'secret' };
    expect(parseAppSettings(JSON.stringify(settings), 'settings.json')).toEqual(settings);
  });

  it.each([
    ['{', /are not JSON/],
    ['null', /must hold a JSON object/],
    ['{"bigPeerUrl": "https://h", "appId": "a", "playgroundToken": "t", "extra": 1}', /unknown field\(s\) extra/],
    ['{"bigPeerUrl": "https://h", "appId": " ", "playgroundToken": "t"}', /need "appId" as a non-empty string, not " "/],
    ['{"bigPeerUrl": "not a url", "appId": "a", "playgroundToken": "t"}', /http:\/\/ or https:\/\/ URL/],
    ['{"bigPeerUrl": "https://u:p@h", "appId": "a", "playgroundToken": "t"}', /must not carry credentials/],
    ['{"bigPeerUrl": "https://h", "appId": "a", "playgroundToken": "t", "lan": "yes"}', /need "lan" as true or false, not "yes"/],
  ])('refuses %s', (text, message) => {
    expect(() => parseAppSettings(text, '/x/settings.json')).toThrow(message);
    expect(() => parseAppSettings(text, '/x/settings.json')).toThrow(AppSettingsError);
  });
});

describe('readAppSettings and userDataPlan', () => {
  it('find no settings in an empty folder, and plan the local Big Peer beside the peer', () => {
    const dir = mkdtempSync(join(tmpdir(), 'settings-'));
    try {
      expect(readAppSettings(dir)).toBeUndefined();
      expect(userDataPlan(dir)).toEqual({ store: join(dir, 'peer'), link: { kind: 'local', directory: join(dir, 'local-big-peer') } });
      writeFileSync(join(dir, 'settings.json'), JSON.stringify({ bigPeerUrl: 'http://127.0.0.1:1', appId: 'a', playgroundToken: 't' }));
      expect(userDataPlan(dir)).toEqual({ store: join(dir, 'peer'), link: { kind: 'remote', url: 'http://127.0.0.1:1', appID: 'a', playgroundToken: 't' } });
      writeFileSync(join(dir, 'settings.json'), JSON.stringify({ bigPeerUrl: 'http://127.0.0.1:1', appId: 'a', playgroundToken: 't', lan: true }));
      expect(userDataPlan(dir)).toMatchObject({ lan: {} });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports a settings.json that cannot be read', () => {
    const dir = mkdtempSync(join(tmpdir(), 'settings-'));
    try {
      mkdirSync(join(dir, 'settings.json'));
      expect(() => readAppSettings(dir)).toThrow(/cannot be read/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
