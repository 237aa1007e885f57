import { describe, expect, it } from 'vitest';
import { parseInspectorUrl } from './remote-peers.ts';

describe('parseInspectorUrl', () => {
  it('takes the URL a peer prints, with or without its trailing slash and a panel fragment, and normalises it', () => {
    const token = 'WxKsXVqIqR5lq_hsw2HC7IMWe2ZHGfW3BaAQxiNNnNY';
    expect(parseInspectorUrl(` http://127.0.0.1:41237/${token}/ `)).toEqual({ ok: true, url: `http://127.0.0.1:41237/${token}/`, address: '127.0.0.1:41237' });
    expect(parseInspectorUrl(`http://127.0.0.1:41237/${token}`)).toMatchObject({ ok: true, url: `http://127.0.0.1:41237/${token}/` });
    expect(parseInspectorUrl(`http://10.0.0.7:9000/${token}/#/documents`)).toMatchObject({ ok: true, url: `http://10.0.0.7:9000/${token}/` });
    expect(parseInspectorUrl(`http://[::1]:9000/abc/`)).toMatchObject({ ok: true, url: 'http://[::1]:9000/abc/', address: '[::1]:9000' });
  });

  it('refuses what no inspector serves: names, https, credentials, queries, other paths, no token', () => {
    for (const [text, message] of [
      ['', /Paste the URL/],
      ['not a url', /Not a URL/],
      ['https://127.0.0.1:1/abc/', /over http, not https/],
      ['http://localhost:1/abc/', /IP address .* not localhost/],
      ['http://evil.example:1/abc/', /not evil\.example/],
      ['http://user:pw@127.0.0.1:1/abc/', /user name or password/],
      ['http://127.0.0.1:1/abc/?x=1', /no query/],
      ['http://127.0.0.1:1/', /end with the token/],
      ['http://127.0.0.1:1/abc/ws', /end with the token/],
      ['http://127.0.0.1:1/a%2Fb/', /end with the token/],
      ['file:///etc/passwd', /over http, not file/],
    ] as const) {
      const parsed = parseInspectorUrl(text);
      expect(parsed.ok, text).toBe(false);
      if (!parsed.ok) expect(parsed.message).toMatch(message);
    }
  });
});
