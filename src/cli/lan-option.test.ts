import { describe, expect, it } from 'vitest';
import { UsageError, lanOption } from './peer-options.ts';

describe('the --lan options', () => {
  it('are off without --lan', () => {
    expect(lanOption({ lan: false })).toBeUndefined();
  });

  it('listen on all interfaces and a free port by default', () => {
    expect(lanOption({ lan: true })).toEqual({});
  });

  it('take a listen address as HOST:PORT (IPv6 in brackets) and an interface address', () => {
    expect(lanOption({ lan: true, 'lan-listen': '0.0.0.0:4040', 'lan-interface': '10.0.0.7' })).toEqual({
      listen: { host: '0.0.0.0', port: 4040 },
      interface: '10.0.0.7',
    });
    expect(lanOption({ lan: true, 'lan-listen': '[::]:0' })).toEqual({ listen: { host: '::', port: 0 } });
  });

  it('refuse a malformed address, a port past 65535, an interface that is not IPv4, or either without --lan', () => {
    expect(() => lanOption({ lan: true, 'lan-listen': '4040' })).toThrow(new UsageError('--lan-listen takes HOST:PORT (such as 0.0.0.0:4040), not 4040'));
    expect(() => lanOption({ lan: true, 'lan-listen': 'h:70000' })).toThrow(UsageError);
    expect(() => lanOption({ lan: true, 'lan-interface': 'eth0' })).toThrow(new UsageError('--lan-interface takes an IPv4 address, not eth0'));
    expect(() => lanOption({ lan: false, 'lan-listen': '0.0.0.0:1' })).toThrow(new UsageError('--lan-listen needs --lan'));
  });
});
