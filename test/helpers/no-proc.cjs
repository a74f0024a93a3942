// A preload (NODE_OPTIONS=--require …) for the run of the suites on the `ps` path
// (scripts/test-ps-path.mjs): every /proc access through Node's fs fails in every Node process of
// the run (lanes, its hooks, the test processes). Each access is also written to
// $LANES_PROC_GUARD_LOG, because lanes code that catches read errors (a process that vanished)
// would otherwise swallow the throw; the run fails when that file is not empty. `ps` itself may
// read /proc: it is not a Node process.
/* eslint-disable @typescript-eslint/no-require-imports -- a --require preload is CommonJS by nature */
'use strict';
const fs = require('node:fs');

const LOG = process.env.LANES_PROC_GUARD_LOG;
const appendFileSync = fs.appendFileSync;
const isProc = (p) => {
  if (p instanceof URL) p = p.pathname;
  else if (Buffer.isBuffer(p)) p = p.toString();
  return typeof p === 'string' && /^\/proc(\/|$)/.test(require('node:path').resolve(p));
};
function refuse(name, p) {
  const line = `pid ${process.pid} (${process.argv.slice(1).join(' ').slice(0, 160)}): fs.${name}(${p})\n`;
  if (LOG) appendFileSync(LOG, line);
  const e = new Error(`/proc is off limits on the ps path: fs.${name}(${p})`);
  e.code = 'EACCES';
  throw e;
}

const PATH_FIRST = [
  'access',
  'accessSync',
  'existsSync',
  'open',
  'openSync',
  'readFile',
  'readFileSync',
  'readdir',
  'readdirSync',
  'readlink',
  'readlinkSync',
  'realpath',
  'realpathSync',
  'stat',
  'statSync',
  'lstat',
  'lstatSync',
  'opendir',
  'opendirSync',
  'createReadStream',
  'watch',
  'watchFile',
];
for (const name of PATH_FIRST) {
  const original = fs[name];
  if (typeof original !== 'function') continue;
  const guarded = function (p, ...rest) {
    if (isProc(p)) refuse(name, p);
    return original.call(this, p, ...rest);
  };
  Object.assign(guarded, original); // realpathSync.native and friends
  fs[name] = guarded;
}
// fs.promises is patched when first used: loading it up front would load node:internal/fs/promises
// in every process (test/cli/hot-path.test.ts pins that lanes' hot commands do not).
function guardPromises(promises) {
  for (const name of ['access', 'open', 'readFile', 'readdir', 'readlink', 'realpath', 'stat', 'lstat', 'opendir']) {
    const original = promises[name];
    if (typeof original !== 'function') continue;
    promises[name] = function (p, ...rest) {
      if (isProc(p)) {
        try {
          refuse(`promises.${name}`, p);
        } catch (e) {
          return Promise.reject(e);
        }
      }
      return original.call(this, p, ...rest);
    };
  }
  return promises;
}
const promisesDescriptor = Object.getOwnPropertyDescriptor(fs, 'promises');
let guardedPromises;
Object.defineProperty(fs, 'promises', {
  configurable: true,
  enumerable: true,
  get() {
    guardedPromises ??= guardPromises(
      promisesDescriptor.get ? promisesDescriptor.get.call(fs) : promisesDescriptor.value,
    );
    return guardedPromises;
  },
});
// ES modules' named imports of node:fs (tests running lanes' sources in-process) see the guard too.
require('node:module').syncBuiltinESMExports();
