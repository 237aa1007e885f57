/**
 * The inspector page's Content-Security-Policy, for the Electron side and the build config. It is
 * defined in `src/shared` because the browser mode (`syncmesh inspect`, in `src/cli`) sends the
 * same policy as a header, and the CLI may not import from `src/main`.
 */
export { contentSecurityPolicy, type CspMode } from '../shared/content-security-policy.ts';
