import { LanesError } from './errors.js';

// What every table's validation shares: the file's source, and errors naming file, line and key.

export interface ConfigSource {
  file: string;
  text: string;
  data: Record<string, unknown>;
}

/** The 1-based line of `key` inside `[section]` of a TOML text (0 when not found). */
export function lineOf(text: string, section: string, key?: string): number {
  const lines = text.split('\n');
  let inSection = section === '';
  for (let i = 0; i < lines.length; i++) {
    const l = (lines[i] ?? '').trim();
    const header = /^\[\s*([^\]]+?)\s*\]/.exec(l);
    if (header) {
      inSection = header[1] === section;
      if (inSection && key === undefined) return i + 1;
      continue;
    }
    if (
      inSection &&
      key !== undefined &&
      new RegExp(`^["']?${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}["']?\\s*=`).test(l)
    )
      return i + 1;
  }
  return 0;
}

export function fail(
  src: ConfigSource,
  section: string,
  key: string | undefined,
  expected: string,
  got?: unknown,
): never {
  const line = lineOf(src.text, section, key);
  const where = `${src.file}${line ? `:${line}` : ''}`;
  const name = key === undefined ? `[${section}]` : section ? `${section}.${key}` : key;
  throw new LanesError(
    'E_CONFIG',
    `${where}: ${name}: expected ${expected}${got === undefined ? '' : `, got ${JSON.stringify(got)}`}`,
    {
      hint: `fix ${where} (the keys are documented in the README, "Configuration")`,
      details: { file: src.file, line, key: name },
    },
  );
}

export function table(src: ConfigSource, name: string): Record<string, unknown> {
  const t = src.data[name];
  if (t === undefined) return {};
  if (typeof t !== 'object' || t === null || Array.isArray(t)) fail(src, '', name, 'a table', t);
  return t as Record<string, unknown>;
}

export function stringList(
  src: ConfigSource,
  section: string,
  key: string,
  value: unknown,
  pattern: RegExp,
  what: string,
): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || !pattern.test(v)))
    fail(src, section, key, `an array of ${what}`, value);
  return value as string[];
}
