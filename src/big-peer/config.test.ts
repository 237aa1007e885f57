import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EVERYTHING } from '../shared/permissions.ts';
import { bigPeerConfig, loadConfig } from './config.ts';

describe('the Big Peer configuration', () => {
  let dir: string;
  const file = (value: unknown): string => {
    const path = join(dir, 'big-peer.json');
    writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
    return path;
  };
  const messageOf = (fn: () => unknown): string => {
    try {
      fn();
    } catch (error) {
      expect((error as { code: string }).code).toBe('cli/usage');
      return (error as Error).message;
    }
    throw new Error('expected an error');
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'big-peer-config-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('takes the defaults for what neither the file nor the flags give', () => {
    const config = loadConfig({ appID: 'app' });
    expect(config).toMatchObject({ appID: 'app', host: '127.0.0.1', port: 8080, dataDir: undefined, logLevel: 'INFO', apiKeys: [], tls: undefined });
    expect(config.defaultPermissions).toEqual(EVERYTHING);
    expect(config.certificateLifetimeSeconds).toBe(8 * 3600);
  });

  it('merges the file and the flags, the flags winning, paths relative to the file', () => {
    const path = file({
      appID: 'from-file',
      port: 9000,
      data: 'store',
      logLevel: 'debug',
      apiKeys: ['file-key-0123456789'],
      authProviders: { corp: { url: 'http://127.0.0.1:9/auth' } },
      tls: { key: 'tls/key.pem', cert: 'tls/cert.pem' },
      defaultPermissions: { read: { everything: true }, write: { queriesByCollection: { orders: ['true'] } } },
      ttlJobs: [{ collection: 'orders', ttlHours: 72 }],
    });
    const config = loadConfig({ config: path, port: '0', apiKeys: ['flag-key-0123456789'] });
    expect(config).toMatchObject({ appID: 'from-file', port: 0, dataDir: join(dir, 'store'), logLevel: 'DEBUG' });
    expect(config.apiKeys).toEqual(['file-key-0123456789', 'flag-key-0123456789']);
    expect(config.authProviders).toEqual({ corp: { url: 'http://127.0.0.1:9/auth' } });
    expect(config.tls).toEqual({ keyFile: join(dir, 'tls/key.pem'), certFile: join(dir, 'tls/cert.pem') });
    expect(config.defaultPermissions.write).toEqual({ everything: false, queries_by_collection: { orders: ['true'] } });
    expect(config.ttlJobs).toEqual([{ collection: 'orders', ttlHours: 72 }]);
  });

  it('says what is wrong, and where', () => {
    expect(messageOf(() => loadConfig({}))).toMatch(/an app id is required/);
    expect(messageOf(() => loadConfig({ appID: 'a', port: '70000' }))).toBe('--port must be an integer from 0 to 65535, not "70000"');
    expect(messageOf(() => loadConfig({ appID: 'a', logLevel: 'loud' }))).toMatch(/log level must be one of ERROR, WARN, INFO, DEBUG, VERBOSE, not LOUD/);
    expect(messageOf(() => loadConfig({ appID: 'a', tlsKey: 'k.pem' }))).toMatch(/TLS needs both a key and a certificate/);
    expect(messageOf(() => loadConfig({ appID: 'a', apiKeys: ['short'] }))).toMatch(/--api-key must be at least 16 characters/);
    const bad = file({ appID: 'a', prot: 1 });
    expect(messageOf(() => loadConfig({ config: bad }))).toMatch(/unknown field\(s\) prot/);
    expect(messageOf(() => loadConfig({ config: file({ appID: 'a', authProviders: { x: { url: 'ftp://x' } } }) }))).toMatch(
      /authProviders\.x\.url must be an http:\/\/ or https:\/\/ URL/,
    );
    expect(messageOf(() => loadConfig({ config: file({ appID: 'a', ttlJobs: [{ collection: 'o', ttlHours: 0 }] }) }))).toMatch(/ttlHours > 0/);
    expect(messageOf(() => loadConfig({ config: file('{ not json') }))).toMatch(/is not JSON/);
    expect(messageOf(() => loadConfig({ config: join(dir, 'missing.json') }))).toMatch(/cannot read the config file/);
  });

  it('drains for 5 s by default when loaded for production, 0 in code, and takes a metrics token of 16 characters or more', () => {
    expect(loadConfig({ appID: 'a' })).toMatchObject({ drainDelayMs: 5000, metricsToken: undefined });
    expect(bigPeerConfig({ appID: 'a' })).toMatchObject({ drainDelayMs: 0, metricsToken: undefined });
    const config = loadConfig({ config: file({ appID: 'a', drainDelayMs: 0, metricsToken: 'metrics-token-0123456789' }) });
    expect(config).toMatchObject({ drainDelayMs: 0, metricsToken: 'metrics-token-0123456789' });
    expect(messageOf(() => loadConfig({ config: file({ appID: 'a', drainDelayMs: -1 }) }))).toMatch(
      /: drainDelayMs must be an integer from 0 to 3600000, not -1/,
    );
    const short = messageOf(() => loadConfig({ config: file({ appID: 'a', metricsToken: 'short-secret' }) }));
    expect(short).toMatch(/metricsToken must be at least 16 characters long/);
    expect(short).not.toContain('short-secret');
  });

  it('gives a statement 10 s, two query threads and a subscription 10 s by default, the flag winning over the file', () => {
    expect(loadConfig({ appID: 'a' })).toMatchObject({ statementTimeoutMs: 10_000, queryThreads: 2, subscriptionBudgetMs: 10_000 });
    expect(bigPeerConfig({ appID: 'a' })).toMatchObject({ statementTimeoutMs: 10_000, queryThreads: 2, subscriptionBudgetMs: 10_000 });
    const path = file({ appID: 'a', statementTimeoutMs: 2_000, queryThreads: 0, subscriptionBudgetMs: 500 });
    expect(loadConfig({ config: path })).toMatchObject({ statementTimeoutMs: 2_000, queryThreads: 0, subscriptionBudgetMs: 500 });
    expect(loadConfig({ config: path, statementTimeoutMs: '750' }).statementTimeoutMs).toBe(750);
    expect(messageOf(() => loadConfig({ config: file({ appID: 'a', statementTimeoutMs: 0 }) }))).toMatch(
      /: statementTimeoutMs must be an integer from 1 to 3600000, not 0/,
    );
    expect(messageOf(() => loadConfig({ config: file({ appID: 'a', queryThreads: 65 }) }))).toMatch(/: queryThreads must be an integer from 0 to 64, not 65/);
  });

  it('keeps tombstones 30 days by default, reaped in 02:00-05:00, the flag winning over the file, and says what is wrong', () => {
    expect(loadConfig({ appID: 'a' })).toMatchObject({ tombstoneTtlDays: 30, tombstoneWindow: '02:00-05:00' });
    expect(bigPeerConfig({ appID: 'a' })).toMatchObject({ tombstoneTtlDays: 30, tombstoneWindow: '02:00-05:00' });
    const path = file({ appID: 'a', tombstoneTtlDays: 90, tombstoneWindow: '23:00-01:00' });
    expect(loadConfig({ config: path })).toMatchObject({ tombstoneTtlDays: 90, tombstoneWindow: '23:00-01:00' });
    expect(loadConfig({ config: path, tombstoneTtlDays: '14' }).tombstoneTtlDays).toBe(14);
    expect(messageOf(() => loadConfig({ appID: 'a', tombstoneTtlDays: '0' }))).toBe('--tombstone-ttl-days must be an integer from 1 to 36500, not "0"');
    expect(messageOf(() => loadConfig({ config: file({ appID: 'a', tombstoneWindow: '02:00-02:00' }) }))).toMatch(
      /: tombstoneWindow must be a UTC window HH:MM-HH:MM whose start and end differ, such as 02:00-05:00, not "02:00-02:00"/,
    );
  });

  it('takes a PostgreSQL store with its schema from --storage or the file, and never echoes its URL', () => {
    const flagged = loadConfig({ appID: 'app', storage: 'postgres://bp:secret@db.internal:5432/syncmesh?schema=app_one&sslmode=require', nodeName: 'node-7' });
    expect(flagged.postgres).toEqual({ url: 'postgres://bp:secret@db.internal:5432/syncmesh?sslmode=require', schema: 'app_one', pollIntervalMs: 1000 });
    expect(flagged).toMatchObject({ dataDir: undefined, nodeName: 'node-7' });
    const fromFile = loadConfig({ config: file({ appID: 'app', storage: 'postgresql://db/x', pollIntervalMs: 250 }) });
    expect(fromFile.postgres).toEqual({ url: 'postgresql://db/x', schema: 'syncmesh', pollIntervalMs: 250 });
    expect(loadConfig({ appID: 'app' }).postgres).toBeUndefined();
    const bad = messageOf(() => loadConfig({ appID: 'app', storage: 'mysql://bp:secret@db/x' }));
    expect(bad).toMatch(/--storage must be a PostgreSQL URL/);
    expect(bad).not.toMatch(/secret/);
    expect(messageOf(() => loadConfig({ appID: 'app', storage: 'postgres://bp:secret@db/x?schema=No-Such' }))).not.toMatch(/secret/);
    expect(messageOf(() => loadConfig({ appID: 'app', storage: 'postgres://db/x', data: dir }))).toMatch(/not both/);
  });

  it('takes tls only as an object of two file names, and no credentials in a webhook URL', () => {
    const tlsOf = (tls: unknown) => messageOf(() => loadConfig({ config: file({ appID: 'a', tls }) }));
    expect(tlsOf('cert.pem')).toMatch(/: tls must be an object/);
    expect(tlsOf(true)).toMatch(/: tls must be an object/);
    expect(tlsOf({ keyFile: 'k.pem' })).toMatch(/: tls\.certFile must be the path of a PEM file/);
    expect(tlsOf({ keyFile: 'k.pem', certFile: 'c.pem', ca: 'x' })).toMatch(/unknown field\(s\) ca/);
    const config = loadConfig({ config: file({ appID: 'a', tls: { keyFile: 'k.pem', certFile: 'c.pem' } }) });
    expect(config.tls).toEqual({ keyFile: join(dir, 'k.pem'), certFile: join(dir, 'c.pem') });
    const secret = messageOf(() => loadConfig({ config: file({ appID: 'a', authProviders: { corp: { url: 'https://user:s3cr3t@hooks.example/auth' } } }) }));
    expect(secret).toMatch(/authProviders\.corp\.url must not carry credentials/);
    expect(secret).not.toContain('s3cr3t');
  });
});
