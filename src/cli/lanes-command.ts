import { resolve } from 'node:path';
import { shellQuote } from '../core/shell-quote.js';

/**
 * How an installed hook runs lanes: `node FILE` with the path lanes was started through. For an
 * installed package that is the bin link (<prefix>/bin/lanes), which stays valid across upgrades,
 * unlike the file it points to in a versioned store (pnpm, volta). Node follows the link.
 */
export function hookLanesCommand(): string {
  return `${shellQuote(process.execPath)} ${shellQuote(resolve(process.argv[1] ?? 'lanes'))}`;
}
