/**
 * Where a module started by URL (a worker thread's script) is, beside the module that starts it.
 * The sources name it `./x.ts`; in the compiled package (lib/, docs/package.md) it is `./x.js`,
 * and Node.js runs `.ts` files only outside node_modules. So the sibling takes the extension of
 * the module that starts it (its `import.meta.url`): `.ts` from the sources, `.js` from the
 * package, whatever the literal says.
 */
export function siblingModule(url: URL, starter: string): URL {
  const extension = /\.[cm]?[jt]sx?$/.exec(new URL(starter).pathname)?.[0];
  if (extension === undefined) return url;
  const sibling = new URL(url);
  sibling.pathname = sibling.pathname.replace(/\.[cm]?[jt]sx?$/, extension);
  return sibling;
}
