import { describe, expect, it } from 'vitest';
import { PEER_OPTIONS, UsageError, bigPeerLoginOptions, deviceNameOption, evictStrategyOption, evictionOption, parseCommandLine } from './peer-options.ts';

describe('the --evict options', () => {
  it('are off without --evict', () => {
    expect(evictionOption({})).toBeUndefined();
    expect(evictionOption({ evict: [] })).toBeUndefined();
  });

  it('read big-peer:COLLECTION and local:COLLECTION:TTL_HOURS[:FIELD], repeatable, with the window', () => {
    const { values } = parseCommandLine(
      ['--evict', 'big-peer:orders', '--evict', 'local:carts:72', '--evict', 'local:logs:0.5:meta.loggedAt', '--evict-window', '22:30-04:00'],
      PEER_OPTIONS,
    );
    expect(evictionOption(values)).toEqual({
      strategies: [
        { kind: 'big-peer', collection: 'orders' },
        { kind: 'local', collection: 'carts', ttlHours: 72 },
        { kind: 'local', collection: 'logs', ttlHours: 0.5, field: 'meta.loggedAt' },
      ],
      window: '22:30-04:00',
    });
  });

  it('refuse an unknown strategy, a missing collection or TTL, a TTL that is not above 0, a bad field, extra parts', () => {
    for (const bad of [
      'orders',
      'ttl:orders:72',
      'local:',
      'local:orders',
      'local:orders:0',
      'local:orders:-3',
      'local:orders:3h',
      'local:orders:72:1field',
      'local:orders:72:a:b',
      'big-peer:orders:72',
      'big-peer:',
      'local: orders:72',
      'local:__presence:1',
    ]) {
      expect(() => evictStrategyOption(bad), bad).toThrow(UsageError);
    }
    expect(() => evictStrategyOption('local:__presence:1')).toThrow(/__presence is an internal collection/);
    expect(evictStrategyOption('local:__private:1')).toEqual({ kind: 'local', collection: '__private', ttlHours: 1 });
    expect(() => evictStrategyOption('local:orders:0')).toThrow(/TTL_HOURS is a number of hours above 0/);
    expect(() => evictStrategyOption('fifo:orders')).toThrow(/the strategy is big-peer or local/);
    expect(() => evictStrategyOption('orders')).toThrow(
      '--evict takes big-peer:COLLECTION or local:COLLECTION:TTL_HOURS[:FIELD] (such as local:orders:72), not "orders"',
    );
  });

  it('refuse two strategies for one collection', () => {
    expect(() => evictionOption({ evict: ['local:orders:72', 'big-peer:orders'] })).toThrow(
      new UsageError('--evict names orders twice: one strategy per collection'),
    );
  });

  it('refuse a window that is not HH:MM-HH:MM, or a window without a strategy', () => {
    for (const bad of ['2-5', '02:00', '24:00-05:00', '02:60-05:00', '02:00–05:00', '02:00-05:00 ', '03:00-03:00']) {
      expect(() => evictionOption({ evict: ['local:orders:72'], 'evict-window': bad }), bad).toThrow(/--evict-window takes HH:MM-HH:MM in UTC/);
    }
    expect(() => evictionOption({ 'evict-window': '02:00-05:00' })).toThrow(new UsageError('--evict-window needs at least one --evict strategy'));
  });
});

describe('the login options', () => {
  const login = (argv: readonly string[], mode: 'required' | 'optional' = 'optional') => bigPeerLoginOptions(parseCommandLine(argv, PEER_OPTIONS).values, mode);
  const base = ['--app-id', 'pos', '--big-peer', 'http://127.0.0.1:8080'];

  it('take the playground token, or a provider with its token, and nothing for an offline peer', () => {
    expect(login([])).toBeUndefined();
    expect(login([...base, '--playground-token', 't'])).toEqual({ appID: 'pos', bigPeerURL: 'http://127.0.0.1:8080', token: 't', provider: undefined });
    expect(login([...base, '--auth-provider', 'corp', '--auth-token', 'register-2'])).toEqual({
      appID: 'pos',
      bigPeerURL: 'http://127.0.0.1:8080',
      token: 'register-2',
      provider: 'corp',
    });
  });

  it('refuse both ways at once, half a provider login, and a login without its app or Big Peer', () => {
    for (const [argv, message] of [
      [[...base, '--playground-token', 't', '--auth-provider', 'corp', '--auth-token', 'x'], /not both/],
      [[...base, '--auth-provider', 'corp'], /--auth-token TOKEN/],
      [[...base, '--auth-token', 'x'], /--auth-provider NAME/],
      [[...base], /--playground-token T is required/],
      [['--auth-provider', 'corp', '--auth-token', 'x'], /--app-id ID is required/],
      [['--app-id', 'pos', '--auth-provider', 'corp', '--auth-token', 'x'], /--big-peer URL is required/],
    ] as const) {
      expect(() => login(argv)).toThrow(UsageError);
      expect(() => login(argv)).toThrow(message);
    }
    expect(() => login([], 'required')).toThrow(/--app-id ID is required/);
  });
});

describe('the --device-name option', () => {
  it('takes a trimmed name, and is absent when not given', () => {
    const { values } = parseCommandLine(['--device-name', '  till 3 '], PEER_OPTIONS);
    expect(deviceNameOption(values['device-name'])).toBe('till 3');
    expect(deviceNameOption(undefined)).toBeUndefined();
  });

  it('refuses an empty name and one over 100 characters', () => {
    expect(() => deviceNameOption('  ')).toThrow(new UsageError('--device-name takes a name of 1 to 100 characters, not "  "'));
    expect(() => deviceNameOption('x'.repeat(101))).toThrow(UsageError);
  });
});
