// The dashboard never shows the value of an environment variable lanes strips ([env] strip in
// lanes.toml or the user config): a session's recorded command line, label or a journal detail
// can hold one (`lanes start -- env API_KEY=… agent`). Every JSON the server sends goes through
// this, so no field can forget it. Token-shaped words are hidden too (the same as notifications).
import { matchesStrip } from '../core/config.js';
import { hideTokenShapes, MIN_SECRET_LENGTH } from '../core/redact.js';

export { MIN_SECRET_LENGTH } from '../core/redact.js';

export interface Redactor {
  /** The JSON text of `value` with every stripped variable's value replaced by `[$NAME hidden]`. */
  json(value: unknown): string;
  /** The same for JSON text made already. */
  text(json: string): string;
  /** The names whose values are hidden (never the values). */
  names: string[];
}

export function redactor(env: Record<string, string | undefined>, strip: string[]): Redactor {
  const secrets = Object.entries(env)
    .filter(([k, v]) => v !== undefined && v.length >= MIN_SECRET_LENGTH && matchesStrip(k, strip))
    .map(([k, v]) => ({ name: k, escaped: JSON.stringify(v).slice(1, -1) }))
    // Longest first: a value containing another is replaced whole.
    .sort((a, b) => b.escaped.length - a.escaped.length);
  return {
    names: secrets.map((s) => s.name),
    json(value) {
      return this.text(JSON.stringify(value));
    },
    text(json) {
      let text = json;
      for (const s of secrets) text = text.split(s.escaped).join(`[$${s.name} hidden]`);
      // And whatever is shaped like a token or key, stripped or not (core/redact.ts).
      return hideTokenShapes(text);
    },
  };
}
