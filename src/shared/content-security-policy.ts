/**
 * The Content-Security-Policy of the inspector page.
 *
 * It is injected as a `<meta http-equiv>` tag into `index.html` by `electron.vite.config.ts`, so
 * it travels with the built renderer: the same policy holds in the Electron window (loaded from
 * `file://`) and wherever else the built renderer is served (`syncmesh inspect` also sends it as a
 * header). It lives in `src/shared` because both the Electron main process and the CLI use it;
 * it is pure (no `electron`, no `node:*`) so that the build config and the tests can import it.
 */

/** Which page the policy is for: the built renderer, or the Vite dev server's page. */
export type CspMode = 'production' | 'development';

/**
 * Directives of the built renderer. Scripts and styles come only from the page's own origin
 * (no inline code, no eval); the only sockets allowed besides the own origin are to
 * loopback, where a local peer serves the inspector contract.
 */
const PRODUCTION_DIRECTIVES: readonly string[] = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self' ws://127.0.0.1:*",
  "img-src 'self' data:",
  // Not covered by default-src: forbid <base> rewrites and form submissions.
  "base-uri 'none'",
  "form-action 'none'",
];

/**
 * Directives of the dev server's page. Vite's dev mode needs inline code: @vitejs/plugin-react
 * injects an inline module script (the React Refresh preamble) and Vite injects CSS as `<style>`
 * elements. Its HMR socket is on the dev server's own host and port.
 */
const DEVELOPMENT_DIRECTIVES: readonly string[] = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "connect-src 'self' ws://127.0.0.1:* ws://localhost:*",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
];

/** The policy string for `mode`, ready for a `Content-Security-Policy` header or meta tag. */
export function contentSecurityPolicy(mode: CspMode): string {
  return (mode === 'production' ? PRODUCTION_DIRECTIVES : DEVELOPMENT_DIRECTIVES).join('; ');
}
