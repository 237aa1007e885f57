import { describe, expect, it } from 'vitest';
import { resultLimitOption } from './inspect.ts';

describe('syncmesh inspect --result-limit', () => {
  it('takes bytes, KiB, MiB or GiB, in any case, and nothing for the default', () => {
    expect(resultLimitOption(undefined)).toBeUndefined();
    expect(resultLimitOption('64KiB')).toBe(64 * 1024);
    expect(resultLimitOption('64mib')).toBe(64 * 1024 * 1024);
    expect(resultLimitOption('1GiB')).toBe(1024 ** 3);
    expect(resultLimitOption('1000000')).toBe(1_000_000);
    expect(resultLimitOption('2048B')).toBe(2048);
  });

  it('refuses a size below 1 KiB, above 4 GiB or not written as one, saying what it takes', () => {
    for (const text of ['', '512', '0KiB', '5GiB', '64MB', '1.5MiB', '-1', 'lots']) {
      expect(() => resultLimitOption(text)).toThrow(/--result-limit takes a size from 1KiB to 4GiB/);
    }
  });
});
