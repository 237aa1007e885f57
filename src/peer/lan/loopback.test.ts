import { describe, expect, it } from 'vitest';
import { isLoopback, loopbackWarning } from './loopback.ts';

describe('the loopback warning of the LAN transport', () => {
  it('says plainly that other machines cannot reach a peer listening and advertising on 127.0.0.1', () => {
    const warning = loopbackWarning({ listen: { host: '127.0.0.1', port: 0 }, interface: '127.0.0.1' });
    expect(warning).toMatch(/^other machines cannot reach this peer: it listens on 127\.0\.0\.1 and it advertises over the loopback interface 127\.0\.0\.1/);
  });

  it('says nothing for the defaults or a LAN address', () => {
    expect(loopbackWarning({})).toBeUndefined();
    expect(loopbackWarning({ listen: { host: '0.0.0.0', port: 4040 }, interface: '192.168.1.20' })).toBeUndefined();
  });

  it('knows the loopback forms', () => {
    expect(['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost'].map(isLoopback)).toEqual([true, true, true, true, true]);
    expect(['0.0.0.0', '10.0.0.7', '::', '128.0.0.1'].map(isLoopback)).toEqual([false, false, false, false]);
  });
});
