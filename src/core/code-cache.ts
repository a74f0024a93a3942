import { readFileSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import type * as Os from 'node:os';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { makeDirsSync } from './make-dirs.js';

/** CommonJS' module wrapper, as Module.wrap writes it (importing node:module's default costs ~0.1 ms). */
const WRAP = ['(function (exports, require, module, __filename, __dirname) { ', '\n});'] as const;

/**
 * Loads one of lanes' bundles (CommonJS) with V8's code cache, as Node 22's
 * module.enableCompileCache does (Node 20 has none): the first run saves the compiled code,
 * including the functions it ran, and later runs skip compiling them. Measured on
 * `lanes hook … pre-tool-use`: about 5 ms of ~80 (bench/hook.mjs). The cache lives in
 * $XDG_CACHE_HOME/lanes (~/.cache/lanes), is used only from a directory owned by this user and
 * closed to others (cached code is run), and is keyed by the Node version and the bundle's size,
 * mtime and inode; V8 itself also rejects data from another V8 or other flags.
 * LANES_NO_CODE_CACHE=1 turns it off. Any problem falls back to a plain require.
 *
 * `profile` names what the process is about to run (`hook.pre-tool-use`, `exec`): each has a cache
 * of its own, holding only the functions it runs. V8 deserializes all of a cache on every start,
 * so a pre-edit hook reading one that also holds the session-start briefing's code paid for it in
 * every tool call (~6% of lanes' own instructions, callgrind).
 */
export function loadBundle(
  file: string,
  /** A require that resolves as one in `file`'s directory would: the bundle's own `require`. */
  req: NodeJS.Require,
  {
    env = process.env,
    profile = '',
    ascii = false,
  }: { env?: Record<string, string | undefined>; profile?: string; ascii?: boolean } = {},
): unknown {
  if (env['LANES_NO_CODE_CACHE'] === '1') return req(file);
  let dir: string | null = null;
  try {
    dir = cacheDir(env, req);
  } catch {
    dir = null;
  }
  if (!dir) return req(file);
  const st = statSync(file);
  // The file's name without path.basename, which no other code of a hook call uses (compiling it
  // cost Node 20 ~0.3 M instructions).
  const name = file.slice(Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\')) + 1);
  const stem = `${name}-${process.version}-${process.arch}-`;
  const build = `${st.size}-${Math.floor(st.mtimeMs)}-${st.ino}`;
  // The profile comes from the command line: only a short run of safe characters reaches the name.
  const tag = profile.replace(/[^a-z0-9.-]/g, '_').slice(0, 40);
  const cacheFile = join(dir, `${stem}${build}${tag ? `-${tag}` : ''}.v8c`);
  const { data: cached, saves } = readCache(cacheFile);
  // An ASCII bundle (the build checks hot.cjs is one) is read as latin1: V8 then takes the bytes as
  // they are, where UTF-8 is decoded and scanned first (~3 M instructions of a hook call, callgrind).
  const script = new Script(`${WRAP[0]}${readFileSync(file, ascii ? 'latin1' : 'utf8')}${WRAP[1]}`, {
    filename: file,
    ...(cached ? { cachedData: cached } : {}),
  });
  const mod = { exports: {} as unknown };
  (script.runInThisContext() as (...a: unknown[]) => void).call(
    mod.exports,
    mod.exports,
    req,
    mod,
    file,
    dirname(file),
  );
  const fresh = !cached || script.cachedDataRejected;
  if (fresh || saves < RESAVES) {
    // Saved at exit: by then the functions this command ran are compiled and go into the cache too.
    process.once('exit', () => save(dir, { stem, build }, cacheFile, script, fresh ? 1 : saves + 1));
  }
  return mod.exports;
}

/**
 * A cache holds the functions of the runs that saved it: one made by `lanes exec` leaves the hook's
 * to be compiled in every call (~1.5 ms measured). So the first RESAVES runs that use a cache save
 * it again, each adding what it ran (the cache's own functions stay compiled), and later runs only
 * read it. The file is an 8-byte header, "LNCC" and how many runs saved it, then V8's data.
 */
const RESAVES = 8;
const MAGIC = 0x4c4e4343; // "LNCC"

function readCache(cacheFile: string): { data: Buffer | undefined; saves: number } {
  let raw: Buffer;
  try {
    raw = readFileSync(cacheFile);
  } catch {
    return { data: undefined, saves: 0 };
  }
  if (raw.length <= 8 || raw.readUInt32BE(0) !== MAGIC) return { data: undefined, saves: 0 };
  return { data: raw.subarray(8), saves: raw.readUInt32BE(4) };
}

function cacheDir(env: Record<string, string | undefined>, req: NodeJS.Require): string | null {
  // node:os only when HOME is unset: loading it costs every call ~0.1 ms.
  const home = () => env['HOME'] || (req('node:os') as typeof Os).homedir();
  const dir = join(env['XDG_CACHE_HOME'] || join(home(), '.cache'), 'lanes');
  // One stat in every call; the directory is made only the first time (a recursive mkdir of a
  // directory that exists walks and stats each parent: ~0.4 ms of every hook call).
  let st = statSync(dir, { throwIfNoEntry: false });
  if (!st) {
    makeDirsSync(dir, 0o700);
    st = statSync(dir);
  }
  const uid = process.getuid?.();
  return uid !== undefined && st.uid === uid && (st.mode & 0o022) === 0 ? dir : null;
}

function save(
  dir: string,
  name: { stem: string; build: string },
  cacheFile: string,
  script: Script,
  saves: number,
): void {
  try {
    const tmp = `${cacheFile}.${process.pid}.tmp`;
    const header = Buffer.alloc(8);
    header.writeUInt32BE(MAGIC, 0);
    header.writeUInt32BE(saves, 4);
    writeFileSync(tmp, Buffer.concat([header, script.createCachedData()]), { mode: 0o600 });
    renameSync(tmp, cacheFile);
    if (saves > 1) return;
    // Caches of earlier builds of this bundle, whatever their profile (and of lanes before the
    // header: .v8), are dead weight.
    const current = `${name.stem}${name.build}`;
    for (const f of readdirSync(dir)) {
      const ofThisBuild = f.startsWith(current) && /^[-.]/.test(f.slice(current.length));
      if (f.startsWith(name.stem) && /\.v8c?$/.test(f) && !ofThisBuild) unlinkSync(join(dir, f));
    }
  } catch {
    // A read-only or full cache directory only costs the speed-up.
  }
}
