// A reference model of resource names, written from the rules (README "Concepts", issue 13) and
// not from the parser: what `kind:name` is accepted, how a path claim is normalized (segment by
// segment, no node:path), and when two path claims overlap. 'either' marks inputs the rules leave
// open; the property checks nothing about those.
import type { ResourceContext, ResourceRef } from '../../src/core/resource.js';

export type Expected = { ok: true; ref: ResourceRef } | { ok: false } | 'either';

const REPO_KINDS = ['ticket', 'path', 'branch'];

/** C0 and C1 controls, DEL: never part of a name a person can read back. */
function isControl(code: number): boolean {
  return code <= 0x1f || (code >= 0x7f && code <= 0x9f);
}

/** Bidirectional marks, embeddings, overrides and isolates: they make a name read as another one. */
function isBidi(code: number): boolean {
  return (
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069) ||
    code === 0x200e ||
    code === 0x200f ||
    code === 0x061c
  );
}

/** Zero-width spaces and the BOM: invisible, so two different names would look the same. */
function isZeroWidth(code: number): boolean {
  return code === 0x200b || code === 0x200c || code === 0x2060 || code === 0xfeff;
}

/** Line and paragraph separators: the rules do not name them; accepted or refused, either is fine. */
function isSeparator(code: number): boolean {
  return code === 0x2028 || code === 0x2029;
}

/** A branch name every reasonable rule accepts: plain segments, no `..`, no `.lock` ending. */
function plainBranch(name: string): boolean {
  return name
    .split('/')
    .every((s) => /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(s) && !s.endsWith('.') && !s.endsWith('.lock'));
}

/** Resolves `name` from `cwd` segment by segment; null when it climbs above the filesystem root. */
function segmentsOf(cwd: string, name: string): string[] {
  const out = name.startsWith('/') ? [] : cwd.split('/').filter((s) => s !== '');
  for (const s of name.split('/')) {
    if (s === '' || s === '.') continue;
    if (s === '..') out.pop();
    else out.push(s);
  }
  return out;
}

function pathName(name: string, ctx: ResourceContext): string | null {
  const root = (ctx.worktreeRoot ?? '').split('/').filter((s) => s !== '');
  const segs = segmentsOf(ctx.cwd, name);
  if (segs.length <= root.length || root.some((r, i) => segs[i] !== r)) return null;
  const last = name.split('/').pop();
  const isDir = last === '' || last === '.' || last === '..';
  return segs.slice(root.length).join('/') + (isDir ? '/' : '');
}

export function expectedResource(text: string, ctx: ResourceContext): Expected {
  const colon = text.indexOf(':');
  if (colon <= 0) return { ok: false };
  const kind = text.slice(0, colon);
  const name = text.slice(colon + 1);
  if (!/^[a-z][a-z0-9-]*$/.test(kind)) return { ok: false };
  if (name.length === 0 || name.length > 1024) return { ok: false };
  const codes = [...name].map((c) => c.codePointAt(0) ?? 0);
  if (codes.some((c) => isControl(c) || isBidi(c) || isZeroWidth(c))) return { ok: false };
  if (name.trim() === '') return { ok: false };
  // Spaces around a name (`ticket: SEAT-1`) are refused, except in a path, where they are the file's.
  if (kind !== 'path' && name.trim() !== name) return { ok: false };
  const repoScoped = REPO_KINDS.includes(kind) || ctx.forceRepoScope === true;
  if (repoScoped && !ctx.repoId) return { ok: false };
  if (kind === 'branch' && name.includes('..')) return { ok: false };
  let normalized = name;
  if (kind === 'path') {
    // Paths are one Unicode spelling (NFC), whatever the tool handed over.
    const p = pathName(name.normalize('NFC'), ctx);
    if (p === null) return { ok: false };
    normalized = p;
  }
  if (codes.some(isSeparator)) return 'either';
  if (kind === 'branch' && !plainBranch(name)) return 'either';
  const scope = repoScoped ? `repo:${ctx.repoId}` : `host:${ctx.host}`;
  return { ok: true, ref: { kind, name: normalized, scope } };
}

/** Two normalized path claims overlap when equal or when one is a directory holding the other. */
export function expectedOverlap(a: string, b: string): boolean {
  const split = (p: string) => ({ dir: p.endsWith('/'), segs: p.split('/').filter((s) => s !== '') });
  const x = split(a);
  const y = split(b);
  const within = (outer: typeof x, inner: typeof x) =>
    outer.dir && outer.segs.length <= inner.segs.length && outer.segs.every((s, i) => inner.segs[i] === s);
  const same = x.segs.length === y.segs.length && x.segs.every((s, i) => y.segs[i] === s);
  return same || within(x, y) || within(y, x);
}
