/** One POSIX shell word: single-quoted, with embedded single quotes closed, escaped and reopened. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** One shell word for a command a person reads: left bare when it needs no quoting, else shellQuote. */
export function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : shellQuote(s);
}
