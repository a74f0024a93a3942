// A path every run shares (issue 51, the first incident): a fixed name in /tmp, $TMPDIR, the home
// directory or an agent's config directory, with nothing in it that tells one run from another
// (a variable, a template, a wildcard). Written as the canonical `/tmp/…` or `~/…` so that the
// same place spelled two ways (`$HOME/.x`, `~/.x`, `os.homedir() + '.x'`) is one place.

const SHARED = /^(?:\/tmp|\/var\/tmp|\$\{?TMPDIR(?::-[^}]*)?\}?|~|\$\{?HOME\}?)\/(.+)$/;
const VARYING = /[$`{}*?<>[\]%]/;

export function sharedPath(raw: string): string | null {
  const word = raw.replace(/^["']|["']$/g, '').replace(/[;,)]+$/, '');
  const m = SHARED.exec(word);
  if (!m) return null;
  const rest = m[1]!.replace(/\/+$/, '');
  if (!rest || VARYING.test(rest) || /\s/.test(rest)) return null;
  const home = word.startsWith('~') || /HOME/.test(word.slice(0, 8));
  return `${home ? '~' : '/tmp'}/${rest}`;
}

/** A lock file: a fixed path is the point of one (flock, lockfile), never a handoff. */
export const isLockPath = (p: string): boolean => /\.(lock|lck|pid)$|\/locks?\//.test(p);

/**
 * A user's own configuration, installed programs and keys: shared by design, read by every run and
 * written by an installer or the person (global-config-write judges the writes that matter).
 */
export const isUserConfig = (p: string): boolean =>
  /^~\/(\.(bashrc|bash_profile|bash_login|bash_logout|zshrc|zprofile|zshenv|zlogin|profile|inputrc|vimrc|tmux\.conf|gitconfig|npmrc|netrc|pypirc|yarnrc|condarc)$|\.(ssh|gnupg|aws|kube|docker)\/|\.local\/(bin|share\/applications)\/|bin\/|\.config\/|\.[\w-]+\/(settings|config|preferences)[\w.-]*$|\.claude\.json$|\.claude\/(settings|CLAUDE|agents|commands|skills|plugins|hooks))/.test(
    p,
  ) || /\.(pub|pem|key)$|\/id_[\w-]+$/.test(p);

/**
 * Paths a Python or JavaScript statement builds from the home or temp directory and literals only:
 * `Path.home() / ".claude" / "temp" / "meta.json"`, `path.join(os.homedir(), '.x', 'y.json')`,
 * `os.path.join(tempfile.gettempdir(), "out.json")`.
 */
export function builtPaths(text: string): string[] {
  const out: string[] = [];
  const re =
    /(homedir\(\)|Path\.home\(\)|expanduser\(\s*["']~["']\s*\)|gettempdir\(\)|tmpdir\(\))((?:\s*(?:[,/+]|\.joinpath\()\s*(["'`])[^"'`$]*\3)+)/g;
  for (const m of text.matchAll(re)) {
    const parts = [...m[2]!.matchAll(/(["'`])([^"'`$]*)\1/g)]
      .map((x) => x[2]!.replace(/^\/+|\/+$/g, ''))
      .filter(Boolean);
    const root = /temp|tmp/i.test(m[1]!) ? '/tmp' : '~';
    const p = sharedPath(`${root}/${parts.join('/')}`);
    if (p) out.push(p);
  }
  return out;
}

/** Paths written in prose (or a string) that look like a shared one: `~/.claude/temp/meta.json`, /tmp/x. */
export function pathsInText(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(
    /(?:^|[\s`'"(=:])((?:\/tmp|\/var\/tmp|\$\{?TMPDIR\}?|~|\$\{?HOME\}?)\/[^\s`'"),;]+)/g,
  )) {
    const p = sharedPath(m[1]!.replace(/[.:]+$/, ''));
    if (p) out.push(p);
  }
  return out;
}
