import { matchesStrip } from './config.js';

// What lanes shows or sends never carries a secret it can recognise (issue 46, item 4): the value
// of a variable [env] strip names (found by value: a command line, a label, an agent's prompt can
// hold one), and anything shaped like a token or key (found by shape: an agent asking permission
// for `curl -H "Authorization: Bearer …"`). The page's JSON and the notifications both pass here.

/** Values shorter than this are not sought: they would match ordinary text ("1", "true"). */
export const MIN_SECRET_LENGTH = 6;

export interface Secret {
  name: string;
  value: string;
}

/** The values of the variables `strip` names, longest first (a value holding another goes whole). */
export function strippedSecrets(env: Record<string, string | undefined>, strip: string[]): Secret[] {
  return Object.entries(env)
    .filter((e): e is [string, string] => e[1] !== undefined && e[1].length >= MIN_SECRET_LENGTH)
    .filter(([k]) => matchesStrip(k, strip))
    .map(([name, value]) => ({ name, value }))
    .sort((a, b) => b.value.length - a.value.length);
}

export const TOKEN_HIDDEN = '[token hidden]';

// No pattern crosses a quote or a backslash: they run on JSON text too (the page's), and a match
// never swallows the end of a string.
const V = `[^\\s"'\\\\]`;
const SHAPES: [RegExp, string][] = [
  [/-----BEGIN[A-Z ]*PRIVATE KEY-----[\s\S]*?-----END[A-Z ]*PRIVATE KEY-----/g, TOKEN_HIDDEN],
  // Provider keys, by their published prefixes.
  [/\bsk-(?:ant-|proj-|live-|test-|or-)?[A-Za-z0-9_-]{16,}/g, TOKEN_HIDDEN],
  [/\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g, TOKEN_HIDDEN],
  [/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, TOKEN_HIDDEN],
  [/\bxox[abposr]-[A-Za-z0-9-]{10,}/g, TOKEN_HIDDEN],
  [/\bglpat-[A-Za-z0-9_-]{20,}/g, TOKEN_HIDDEN],
  [/\bAIza[0-9A-Za-z_-]{35}/g, TOKEN_HIDDEN],
  [/\bnpm_[A-Za-z0-9]{36}\b/g, TOKEN_HIDDEN],
  [/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, TOKEN_HIDDEN],
  // A credential after the word that announces it: the word stays, the value goes.
  // (with a digit and a letter in it: "token authentication" is prose, "token 1a2b…" is not)
  [
    /\b(Bearer|Basic|token)(\s+)(?=[A-Za-z._~+/=-]*\d)(?=[0-9._~+/=-]*[A-Za-z])[A-Za-z0-9._~+/=-]{12,}/gi,
    `$1$2${TOKEN_HIDDEN}`,
  ],
  [
    new RegExp(
      `\\b((?:aws_secret_access_key|aws_session_token|[A-Za-z_]*api[_-]?key|[A-Za-z_]*secret|[A-Za-z_]*token|password|passwd|authorization)(?:\\s*[=:]\\s*|"\\s*:\\s*"))(${V}{8,})`,
      'gi',
    ),
    `$1${TOKEN_HIDDEN}`,
  ],
];

/** `text` with every token-shaped word hidden. */
export function hideTokenShapes(text: string): string {
  let out = text;
  for (const [re, to] of SHAPES) out = out.replace(re, to);
  return out;
}

/** `text` with every stripped variable's value and every token-shaped word hidden. */
export function redacted(text: string, secrets: readonly Secret[] = []): string {
  let out = text;
  for (const s of secrets) out = out.split(s.value).join(`[$${s.name} hidden]`);
  return hideTokenShapes(out);
}
