import { shellWord } from './shell-quote.js';

// The one command that continues a session's work after it died or ended with work left, as the
// report, the page and the notifications suggest it: typed as shown in a person's shell, with no
// session, it works (issue 45, item 4).

export function continueCommand(s: { id: string; ticket: string | null }): string {
  return s.ticket ? `lanes new ${shellWord(s.ticket)} --resume` : `lanes adopt ${shellWord(s.id)}`;
}
