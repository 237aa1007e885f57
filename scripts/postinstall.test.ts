import { describe, expect, it } from 'vitest';
// @ts-expect-error -- plain JavaScript without declarations
import { npmNodeVersion, postinstallLine } from './postinstall.js';

describe('the line after npm install', () => {
  it('reads the Node.js npm runs on from its user agent', () => {
    expect(npmNodeVersion('npm/11.19.1 node/v20.20.2 linux x64 workspaces/false')).toBe('20.20.2');
    expect(npmNodeVersion(undefined)).toBeNull();
  });

  it('explains once why npm’s engine warnings are harmless when the bundled Node.js 24 runs the scripts', () => {
    expect(postinstallLine('20.20.2', '24.21.0')).toMatch(
      /^npm ran on Node\.js 20\.20\.2, .* harmless here, because every npm run and npx in this project runs on Node\.js 24\.21\.0/,
    );
  });

  it('says what to do when no Node.js new enough is there, and nothing when npm’s own is new enough', () => {
    expect(postinstallLine('20.20.2', '20.20.2')).toMatch(/install Node\.js 24/);
    expect(postinstallLine('24.21.0', '24.21.0')).toBeNull();
    expect(postinstallLine(null, '24.21.0')).toBeNull();
  });
});
