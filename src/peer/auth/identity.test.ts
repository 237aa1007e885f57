import { describe, expect, it } from 'vitest';
import { SyncError } from '../errors.ts';
import { loginUrl, onlinePlayground, onlineWithAuthentication, validateIdentity, type AuthenticationHandler } from './identity.ts';

const handler: AuthenticationHandler = { authenticationRequired: () => {}, authenticationExpiringSoon: () => {} };

describe('identities', () => {
  it('are built by their helpers with their type', () => {
    expect(onlinePlayground({ appID: 'a', token: 't', bigPeerURL: 'https://x' })).toEqual({
      type: 'onlinePlayground',
      appID: 'a',
      token: 't',
      bigPeerURL: 'https://x',
    });
    expect(onlineWithAuthentication({ appID: 'a', bigPeerURL: 'https://x', provider: 'p', authHandler: handler }).type).toBe('onlineWithAuthentication');
  });

  it('refuse a handler lacking a callback with auth/handler-invalid, naming what is missing', () => {
    const lacking = { authenticationExpiringSoon: () => {} } as unknown as AuthenticationHandler;
    let error: unknown;
    try {
      validateIdentity(onlineWithAuthentication({ appID: 'a', bigPeerURL: 'https://x', provider: 'p', authHandler: lacking }));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SyncError);
    expect(error).toMatchObject({ code: 'auth/handler-invalid', details: { missing: ['authenticationRequired'] } });
  });

  it('refuse unusable fields as programming mistakes', () => {
    expect(() => validateIdentity(onlinePlayground({ appID: '', token: 't', bigPeerURL: 'https://x' }))).toThrow(TypeError);
    expect(() => validateIdentity(onlinePlayground({ appID: 'a', token: 't', bigPeerURL: 'ftp://x' }))).toThrow(/http or https URL/);
    expect(() => validateIdentity(onlinePlayground({ appID: 'a', token: '', bigPeerURL: 'https://x' }))).toThrow(/playground token/);
    expect(() => validateIdentity(onlineWithAuthentication({ appID: 'a', bigPeerURL: 'https://x', provider: '', authHandler: handler }))).toThrow(/provider/);
    expect(() => validateIdentity({ type: 'offline' } as never)).toThrow(/identity.type/);
  });

  it('put the login path under the Big Peer URL, keeping a path prefix', () => {
    expect(loginUrl('https://cloud.example.com', '/_sync/auth/login')).toBe('https://cloud.example.com/_sync/auth/login');
    expect(loginUrl('https://cloud.example.com/app/', '/_sync/auth/login')).toBe('https://cloud.example.com/app/_sync/auth/login');
    expect(loginUrl('http://127.0.0.1:8080', '/_sync/auth/login')).toBe('http://127.0.0.1:8080/_sync/auth/login');
  });
});
