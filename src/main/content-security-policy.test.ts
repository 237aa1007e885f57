import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy } from './content-security-policy.ts';

function directives(policy: string): Map<string, string> {
  return new Map(
    policy.split(';').map((part) => {
      const [name = '', ...sources] = part.trim().split(/\s+/);
      return [name, sources.join(' ')];
    }),
  );
}

describe('contentSecurityPolicy', () => {
  it('allows only the page itself, loopback sockets and data: images in the build', () => {
    const policy = directives(contentSecurityPolicy('production'));
    expect(policy.get('default-src')).toBe("'self'");
    expect(policy.get('script-src')).toBe("'self'");
    expect(policy.get('style-src')).toBe("'self'");
    expect(policy.get('connect-src')).toBe("'self' ws://127.0.0.1:*");
    expect(policy.get('img-src')).toBe("'self' data:");
    expect(policy.get('base-uri')).toBe("'none'");
    expect(policy.get('form-action')).toBe("'none'");
  });

  it('never allows inline code or eval in the build', () => {
    const policy = contentSecurityPolicy('production');
    expect(policy).not.toContain('unsafe-inline');
    expect(policy).not.toContain('unsafe-eval');
  });

  it('relaxes only inline scripts and styles for the dev server, never eval', () => {
    const policy = directives(contentSecurityPolicy('development'));
    expect(policy.get('default-src')).toBe("'self'");
    expect(policy.get('script-src')).toBe("'self' 'unsafe-inline'");
    expect(policy.get('style-src')).toBe("'self' 'unsafe-inline'");
    expect(contentSecurityPolicy('development')).not.toContain('unsafe-eval');
  });
});
