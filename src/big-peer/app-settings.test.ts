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
    ['{"bigPeerUrl": "https://h", "appId": "a", "playgroundToken": "t", "deviceName": " "}', /need "deviceName" as a name of 1 to 100 characters/],
  ])('refuses %s', (text, message) => {
    expect(() => parseAppSettings(text, '/x/settings.json')).toThrow(message);
    expect(() => parseAppSettings(text, '/x/settings.json')).toThrow(AppSettingsError);
  });
});

describe('the device name of the settings', () => {
  it('names the peer, trimmed, and the plan passes it on', () => {
    const text = JSON.stringify({ bigPeerUrl: 'https://h', appId: 'a', playgroundToken: 't', deviceName: ' till-4 ' });
    expect(parseAppSettings(text, '/x/settings.json').deviceName).toBe('till-4');
    const dir = mkdtempSync(join(tmpdir(), 'syncmesh-settings-'));
    try {
      writeFileSync(join(dir, 'settings.json'), text);
      expect(userDataPlan(dir).deviceName).toBe('till-4');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the eviction entry of the settings', () => {
  const base = { bigPeerUrl: 'https://h', appId: 'a', playgroundToken: 't' };
  const parse = (eviction: unknown) => parseAppSettings(JSON.stringify({ ...base, eviction }), '/x/settings.json');

  it('takes strategies, one per collection, and the window', () => {
    const eviction = {
      strategies: [
        { kind: 'big-peer', collection: 'orders' },
        { kind: 'local', collection: 'carts', ttlHours: 72 },
        { kind: 'local', collection: 'logs', ttlHours: 0.5, field: 'meta.loggedAt' },
      ],
      window: '22:00-03:30',
    };
    expect(parse(eviction)).toEqual({ ...base, eviction });
    expect(parse({ strategies: [{ kind: 'local', collection: 'carts', ttlHours: 72 }] }).eviction).toEqual({
      strategies: [{ kind: 'local', collection: 'carts', ttlHours: 72 }],
    });
    // Only the collections the peer owns are internal: `__private` is the application's.
    expect(parse({ strategies: [{ kind: 'big-peer', collection: '__private' }] }).eviction).toEqual({
      strategies: [{ kind: 'big-peer', collection: '__private' }],
    });
  });

  it.each([
    [[], /need "eviction" as \{"strategies".*: not \[\]/],
    [{ strategies: [] }, /"strategies" must be a list of one or more strategies/],
    [{ strategies: [{ kind: 'local', collection: 'o', ttlHours: 72 }], every: 'day' }, /unknown field\(s\) every/],
    [{ strategies: ['local:orders:72'] }, /strategies\[0\] must be an object/],
    [{ strategies: [{ kind: 'fifo', collection: 'o' }] }, /strategies\[0\] needs "kind" as "big-peer" or "local", not "fifo"/],
    [{ strategies: [{ kind: 'local', collection: '', ttlHours: 72 }] }, /strategies\[0\] needs "collection" as a non-empty string/],
    [{ strategies: [{ kind: 'local', collection: 'o', ttlHours: 0 }] }, /strategies\[0\] needs "ttlHours" as a number of hours above 0, not 0/],
    [{ strategies: [{ kind: 'local', collection: 'o', ttlHours: '72' }] }, /not "72"/],
    [{ strategies: [{ kind: 'local', collection: 'o', ttlHours: 72, field: 'created at' }] }, /needs "field" as a field name or dotted path/],
    [{ strategies: [{ kind: 'big-peer', collection: 'o', ttlHours: 72 }] }, /\(big-peer\) takes kind and collection only, not ttlHours/],
    [
      {
        strategies: [
          { kind: 'local', collection: 'o', ttlHours: 1 },
          { kind: 'big-peer', collection: 'o' },
        ],
      },
      /"o" has two strategies/,
    ],
    [{ strategies: [{ kind: 'big-peer', collection: 'o' }], window: '2-5' }, /"window" is HH:MM-HH:MM in UTC, start and end apart, not "2-5"/],
    [{ strategies: [{ kind: 'big-peer', collection: 'o' }], window: '04:00-04:00' }, /not "04:00-04:00"/],
    [{ strategies: [{ kind: 'big-peer', collection: '__presence' }] }, /strategies\[0\] names an internal collection/],
  ])('refuses %j with a clear error', (eviction, message) => {
    expect(() => parse(eviction)).toThrow(message);
    expect(() => parse(eviction)).toThrow(AppSettingsError);
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
      const eviction = { strategies: [{ kind: 'local', collection: 'orders', ttlHours: 72 }] };
      writeFileSync(join(dir, 'settings.json'), JSON.stringify({ bigPeerUrl: 'http://127.0.0.1:1', appId: 'a', playgroundToken: 't', eviction }));
      expect(userDataPlan(dir)).toMatchObject({ eviction });
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
