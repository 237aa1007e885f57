import { describe, expect, it } from 'vitest';
import { EVERYTHING } from '../../shared/permissions.ts';
import { decodeLoginResponse, parseJson, readErrorResponse } from './decode-login-response.ts';

const good = {
  certificate: { claims: 'abc', signature: 'def' },
  issuerKey: 'key',
  expiresAt: 1,
  userID: 'u',
  permissions: { read: { everything: false, queries_by_collection: { orders: ["status = 'open'"] } }, write: EVERYTHING.write },
};

const faultOf = (body: unknown): string | undefined => {
  const decoded = decodeLoginResponse(body);
  return decoded.ok ? undefined : decoded.error;
};

describe('decoding a login response', () => {
  it('accepts a complete response', () => {
    expect(decodeLoginResponse(good)).toEqual({ ok: true, value: good });
  });

  it('reads an error body as `missing field certificate`, the spec’s decode error', () => {
    expect(faultOf({ error: { code: 'auth/failed', message: 'no' } })).toBe('decode error: missing field certificate');
  });

  it('names the first missing or mistyped field, nested ones with their path', () => {
    expect(faultOf({ ...good, userID: undefined })).toBe('decode error: missing field userID');
    expect(faultOf({ ...good, expiresAt: '1' })).toBe('decode error: invalid type for field expiresAt: string, expected a number');
    expect(faultOf({ ...good, certificate: { claims: 'a' } })).toBe('decode error: missing field certificate.signature');
    expect(faultOf({ ...good, permissions: { read: good.permissions.read } })).toBe('decode error: missing field permissions.write');
    expect(faultOf({ ...good, permissions: { ...good.permissions, read: { everything: false, queries_by_collection: { a: [1] } } } })).toBe(
      'decode error: invalid type for field permissions.read.queries_by_collection.a: expected a list of strings',
    );
  });

  it('refuses what is not an object', () => {
    expect(faultOf([good])).toBe('decode error: invalid type: array, expected a login response object');
    expect(faultOf(null)).toBe('decode error: invalid type: null, expected a login response object');
  });

  it('says when a body is not JSON, showing its start', () => {
    const parsed = parseJson('<html>Bad gateway</html>');
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.error).toMatch(/^decode error: the body is not JSON \(.+\): "<html>Bad gateway<\/html>"$/);
  });

  it('reads the Big Peer’s error body, and nothing else', () => {
    expect(readErrorResponse({ error: { code: 'auth/unreachable', message: 'Could not connect to authentication server' } })).toEqual({
      code: 'auth/unreachable',
      message: 'Could not connect to authentication server',
    });
    expect(readErrorResponse({ error: 'x' })).toBeUndefined();
    expect(readErrorResponse(good)).toBeUndefined();
  });
});
