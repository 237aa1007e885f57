/**
 * Whom the limit of sessions waiting for their announcement per address counts a connection
 * against: an IPv4 address as it is (also when mapped into IPv6), an IPv6 address by its /64.
 */
import { describe, expect, it } from 'vitest';
import { addressKey } from './websocket-endpoint.ts';

describe('the address key of the limit per address', () => {
  it('keeps an IPv4 address, also one mapped into IPv6', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::FFFF:127.0.0.2')).toBe('127.0.0.2');
  });

  it('groups IPv6 addresses by their /64, however they are written', () => {
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('2001:db8:1:3::1')).not.toBe(addressKey('2001:db8:1:2::1'));
  });

  it('names an unknown address ?', () => {
    expect(addressKey(undefined)).toBe('?');
  });
});
