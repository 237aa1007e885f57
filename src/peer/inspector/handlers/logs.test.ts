import { afterEach, describe, expect, it } from 'vitest';
import { inspectorKit, turns, type InspectorKit } from '../../../testing/inspector/test-kit.ts';

let kit: InspectorKit | undefined;
afterEach(() => {
  kit?.dispose();
  kit = undefined;
});

describe('logs:recent', () => {
  it('answers the hub’s recent entries, oldest first, the minimum level and no drops', async () => {
    kit = inspectorKit();
    kit.hub.logger('test').info('test.one', { n: 1 });
    kit.hub.logger('test').warn('test.two', { n: 2 });
    const snapshot = await kit.call('logs:recent');
    expect(snapshot.minimumLogLevel).toBe('DEBUG');
    expect(snapshot.dropped).toBe(0);
    expect(snapshot.entries.slice(-2).map((e) => [e.level, e.event, e.fields.n])).toEqual([
      ['INFO', 'test.one', 1],
      ['WARN', 'test.two', 2],
    ]);
  });
});

describe('logs:set-level', () => {
  it('sets the hub’s minimum level, in any letter case', async () => {
    kit = inspectorKit();
    expect(await kit.call('logs:set-level', { level: 'error' })).toEqual({});
    expect(kit.hub.minimumLogLevel).toBe('ERROR');
    kit.hub.logger('test').warn('test.hidden');
    expect((await kit.call('logs:recent')).entries.some((e) => e.event === 'test.hidden')).toBe(false);
    await kit.call('logs:set-level', { level: 'VERBOSE' });
    expect(kit.hub.minimumLogLevel).toBe('VERBOSE');
  });

  it('refuses a missing, unknown or mistyped level, naming the field, and changes nothing', async () => {
    kit = inspectorKit();
    for (const input of [{}, { level: 'LOUD' }, { level: 3 }, { level: null }, { level: 'INFO', extra: 1 }, undefined]) {
      const error = await kit.fail('logs:set-level', input);
      expect(error.code).toBe('inspector/bad-request');
      expect(error.message).toMatch(/^(level|extra):/);
    }
    expect(kit.hub.minimumLogLevel).toBe('DEBUG');
  });
});

describe('logs:batch', () => {
  it('pushes new entries in batches to the session', async () => {
    kit = inspectorKit();
    await turns();
    kit.events.length = 0;
    kit.hub.logger('test').info('test.a');
    kit.hub.logger('test').info('test.b');
    await turns();
    const batches = kit.eventsOf('logs:batch');
    expect(batches).toHaveLength(1);
    expect(batches[0]?.entries.map((e) => e.event)).toEqual(['test.a', 'test.b']);
    expect(batches[0]?.dropped).toBe(0);
  });

  it('tells how many entries a session lost when it fell behind, in the batch and in logs:recent', async () => {
    kit = inspectorKit({ inspector: { logCapacity: 100 } });
    await turns();
    kit.events.length = 0;
    for (let i = 0; i < 130; i++) kit.hub.logger('test').info('test.flood', { i });
    await turns();
    const batches = kit.eventsOf('logs:batch');
    expect(batches.map((b) => [b.entries.length, b.dropped])).toEqual([[100, 30]]);
    expect(batches[0]?.entries[0]?.fields.i).toBe(30);
    expect((await kit.call('logs:recent')).dropped).toBe(30);
  });

  it('keeps each session’s stream apart: a second session gets its own batches', async () => {
    kit = inspectorKit();
    const other = kit.inspector.openSession();
    const seen: string[] = [];
    other.onEvent((event, payload) => {
      if (event === 'logs:batch') seen.push(...(payload as unknown as { entries: { event: string }[] }).entries.map((e) => e.event));
    });
    kit.hub.logger('test').info('test.both');
    await turns();
    expect(seen).toContain('test.both');
    other.close();
    kit.hub.logger('test').info('test.after-close');
    await turns();
    expect(seen).not.toContain('test.after-close');
    expect(kit.eventsOf('logs:batch').flatMap((b) => b.entries.map((e) => e.event))).toContain('test.after-close');
  });
});
