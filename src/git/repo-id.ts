import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A repository's identity across machines: the `origin` remote's URL with the transport taken
 * off (git@github.com:acme/shop.git, ssh://git@github.com/acme/shop and https://github.com/acme/shop
 * are all `github.com/acme/shop`), read from the repository's config file without running git.
 * null when there is no origin. Team stores (PostgreSQL) scope claims by it, because the same
 * repository lives at different paths on different machines.
 */
export function originIdentity(commonDir: string): string | null {
  let text: string;
  try {
    text = readFileSync(join(commonDir, 'config'), 'utf8');
  } catch {
    return null;
  }
  let inOrigin = false;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('[')) {
      inOrigin = /^\[remote\s+"origin"\]$/.test(line);
      continue;
    }
    const m = inOrigin ? /^url\s*=\s*(.+)$/.exec(line) : null;
    if (m?.[1]) return normalizeRemote(m[1].replace(/^"(.*)"$/, '$1'));
  }
  return null;
}

export function normalizeRemote(url: string): string {
  let u = url.trim();
  u = u.replace(/^[a-z+]+:\/\//i, ''); // scheme
  u = u.replace(/^[^@/]+@/, ''); // user@
  u = u.replace(/^([^/:]+):(?!\d+\/)/, '$1/'); // scp-like host:path
  u = u.replace(/^([^/:]+):\d+\//, '$1/'); // a port
  u = u.replace(/\.git\/?$/, '').replace(/\/+$/, '');
  const slash = u.indexOf('/');
  // Host names are case-insensitive; paths may not be.
  return slash < 0 ? u.toLowerCase() : u.slice(0, slash).toLowerCase() + u.slice(slash);
}
