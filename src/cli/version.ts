import { createRequire } from 'node:module';

// The version is package.json's: the build writes it into the bundles (scripts/build.mjs,
// define), and code run from the sources (tests through tsx) reads the file itself.
declare const __LANES_VERSION__: string | undefined;

export const VERSION: string =
  typeof __LANES_VERSION__ === 'string'
    ? __LANES_VERSION__
    : (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
