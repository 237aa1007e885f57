import { describe, expect, it } from 'vitest';
import { isAppUrl, isLoopbackHttpUrl } from './navigation.ts';

describe('isAppUrl', () => {
  const built = 'file:///opt/syncmesh/out/renderer/index.html';
  const dev = 'http://localhost:5173/';

  it('accepts the built page itself, with any query or fragment', () => {
    expect(isAppUrl(built, built)).toBe(true);
    expect(isAppUrl(`${built}?panel=logs#top`, built)).toBe(true);
  });

  it('refuses other files and every remote page when the app is built', () => {
    expect(isAppUrl('file:///etc/passwd', built)).toBe(false);
    expect(isAppUrl('file:///opt/syncmesh/out/renderer/other.html', built)).toBe(false);
    expect(isAppUrl('https://example.com/', built)).toBe(false);
  });

  it('accepts only the dev server origin in development', () => {
    expect(isAppUrl('http://localhost:5173/some/route', dev)).toBe(true);
    expect(isAppUrl('http://localhost:5174/', dev)).toBe(false);
    expect(isAppUrl('http://127.0.0.1:5173/', dev)).toBe(false);
    expect(isAppUrl('https://localhost:5173/', dev)).toBe(false);
  });

  it('refuses what is not a URL', () => {
    expect(isAppUrl('not a url', built)).toBe(false);
    expect(isAppUrl('javascript:alert(1)', dev)).toBe(false);
  });
});

describe('isLoopbackHttpUrl', () => {
  it('accepts a dev server on loopback', () => {
    expect(isLoopbackHttpUrl('http://localhost:5173/')).toBe(true);
    expect(isLoopbackHttpUrl('http://127.0.0.1:5173/')).toBe(true);
    expect(isLoopbackHttpUrl('http://[::1]:5173/')).toBe(true);
  });

  it('refuses remote hosts, other schemes and non-URLs', () => {
    expect(isLoopbackHttpUrl('https://example.com/')).toBe(false);
    expect(isLoopbackHttpUrl('http://localhost.example.com/')).toBe(false);
    expect(isLoopbackHttpUrl('file:///tmp/index.html')).toBe(false);
    expect(isLoopbackHttpUrl('localhost:5173')).toBe(false);
  });
});
