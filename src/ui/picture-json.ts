import type { Redactor } from './redact.js';
import type { FleetView } from './view-types.js';

// The picture's JSON as the pages receive it, redacted (redact.ts), without its clock (Fleet.json()
// puts that first), and the same without its version (what Fleet.publish() compares). Each
// session's text is redacted once and kept while it stays the same: a busy fleet changes a few
// sessions per update, and the redaction's patterns over the whole picture (half a megabyte at
// 1,000 sessions) were most of each publish (bench/ui.mjs, a CPU profile of `lanes ui`).

export class PictureJson {
  private redacted = new Map<string, string>();

  constructor(private readonly redactor: Redactor) {}

  render(view: Omit<FleetView, 'at' | 'version'>, version: number): { json: string; compared: string } {
    const { sessions, ...other } = view;
    const pieces = sessions.map((s) => JSON.stringify(s));
    // `"host":…}`: the rest of the picture, after the sessions.
    const rest = JSON.stringify(other).slice(1);
    const kept = new Map<string, string>();
    const shown = pieces.map((p) => {
      const r = kept.get(p) ?? this.redacted.get(p) ?? this.redactor.text(p);
      kept.set(p, r);
      return r;
    });
    this.redacted = kept;
    return {
      json: `{"version":${version},"sessions":[${shown.join(',')}],${this.redactor.text(rest)}`,
      compared: `{"sessions":[${pieces.join(',')}],${rest}`,
    };
  }
}
