import { afterEach, describe, expect, it, vi } from 'vitest';
import { EVERYTHING } from '../shared/permissions.ts';
import { LogHub, Sync } from '../peer/host.ts';
import { ApiKeys } from './api-keys.ts';
import { BigPeerSettings } from './settings.ts';

const opened: Sync[] = [];
afterEach(() => {
  for (const sync of opened.splice(0)) sync.close();
});

/** API keys on an in-memory store; `turnEnds()` runs what waits for the end of the turn. */
function keysOnAStore(): { keys: ApiKeys; settings: BigPeerSettings; turnEnds: () => void; store: Sync['store'] } {
  const sync = new Sync({ inMemory: true, logHub: new LogHub({ minimumLogLevel: 'ERROR' }) });
  opened.push(sync);
  const settings = new BigPeerSettings(sync.store);
  const waiting: (() => void)[] = [];
  const keys = ApiKeys.load(settings, [], (fn) => waiting.push(fn));
  return { keys, settings, store: sync.store, turnEnds: () => waiting.splice(0).forEach((fn) => fn()) };
}

describe('API keys', () => {
  it('checks the requests of one turn against one read of the keys, made once the turn is over', async () => {
    const { keys, settings, turnEnds } = keysOnAStore();
    const created = keys.create('ops', EVERYTHING, 0);
    turnEnds();
    const { key } = await created;
    const reads = vi.spyOn(settings, 'get');
    const checks = Array.from({ length: 20 }, () => keys.authenticate(`Bearer ${key}`));
    expect(reads).not.toHaveBeenCalled();
    turnEnds();
    const principals = await Promise.all(checks);
    expect(reads).toHaveBeenCalledTimes(1);
    expect(new Set(principals.map((p) => p.keyId)).size).toBe(1);
  });

  it('refuses from the next request on a key revoked in the store by someone else (another node)', async () => {
    const { keys, store, turnEnds } = keysOnAStore();
    const created = keys.create('ops', EVERYTHING, 0);
    turnEnds();
    const { key, info } = await created;
    const first = keys.authenticate(`Bearer ${key}`);
    turnEnds();
    expect((await first).keyId).toBe(info.id);
    // Another node's ApiKeys on the same store: this one is never told of the change.
    const other = ApiKeys.load(new BigPeerSettings(store));
    await other.revoke(info.id, 1);
    const next = keys.authenticate(`Bearer ${key}`);
    turnEnds();
    await expect(next).rejects.toMatchObject({ status: 401, code: 'http/unauthorized', message: `the API key ${info.id} was revoked` });
  });

  it('refuses a missing, malformed or unknown key with 401, reading the keys only for a well-formed one', async () => {
    const { keys, settings, turnEnds } = keysOnAStore();
    const reads = vi.spyOn(settings, 'get');
    await expect(keys.authenticate(undefined)).rejects.toMatchObject({ status: 401, code: 'http/unauthorized' });
    await expect(keys.authenticate('Basic abc')).rejects.toMatchObject({ status: 401, code: 'http/unauthorized' });
    expect(reads).not.toHaveBeenCalled();
    const unknown = keys.authenticate('Bearer smk_nothing');
    turnEnds();
    await expect(unknown).rejects.toMatchObject({ status: 401, message: 'the API key is not valid' });
    expect(reads).toHaveBeenCalledTimes(1);
  });
});
