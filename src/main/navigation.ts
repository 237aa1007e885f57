/**
 * Whether the window may navigate to `candidate`: only to the page the app itself loaded
 * (`appUrl`). For a `file:` page that is the same file (any query or fragment); for the dev
 * server it is the same origin. Anything unparsable is refused.
 */
export function isAppUrl(candidate: string, appUrl: string): boolean {
  let target: URL;
  let app: URL;
  try {
    target = new URL(candidate);
    app = new URL(appUrl);
  } catch {
    return false;
  }
  if (app.protocol === 'file:') {
    return target.protocol === 'file:' && target.host === app.host && target.pathname === app.pathname;
  }
  return target.origin === app.origin;
}

/**
 * Whether `url` is an http(s) page on this machine's loopback interface, the only place a dev
 * server is accepted from.
 */
export function isLoopbackHttpUrl(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const loopbackHosts = ['localhost', '127.0.0.1', '[::1]'];
  return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && loopbackHosts.includes(parsed.hostname);
}
