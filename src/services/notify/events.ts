import type { NotifyEventKind } from '../../core/config-notify.js';
import type { SessionRecord } from '../../store/types.js';
import { continueCommand } from '../../core/continue-command.js';

// What a person is told, and in what words: one sentence that names the session as the page and
// the report do (its label, agent and ticket), what happened, and the agent's own words.

export interface NotifyEvent {
  kind: NotifyEventKind;
  session: string;
  label: string | null;
  agent: string | null;
  ticket: string | null;
  worktree: string | null;
  host: string;
  /** The agent's words (its prompt, the error), lanes' deny reason, or why it was proven dead. */
  why: string | null;
  /** When it happened (store clock): with session and kind, which event a notification is of. */
  at: number;
}

export function notifyEventOf(kind: NotifyEventKind, s: SessionRecord, why: string | null, at: number): NotifyEvent {
  return {
    kind,
    session: s.id,
    label: s.label,
    agent: s.agent,
    ticket: s.ticket,
    worktree: s.worktree,
    host: s.owner.host,
    why,
    at,
  };
}

const WHAT: Record<NotifyEventKind, string> = {
  waiting: 'is waiting for you',
  finished: 'finished its turn',
  denied: 'was denied a call',
  died: 'died',
  exhausted: "ran out of its seat's quota",
  budget: 'reached a budget',
};

/** The session as a person knows it: its label (else its id), then agent and ticket. */
function who(e: NotifyEvent): string {
  const extra = [e.agent, e.ticket].filter((x): x is string => !!x && x !== e.label);
  return `${e.label ?? e.session}${extra.length ? ` (${extra.join(', ')})` : ''}`;
}

/** A notification's title: "lanes: fix-login is waiting for you". */
export function notifyTitle(e: NotifyEvent): string {
  return `lanes: ${e.label ?? e.session} ${WHAT[e.kind]}`;
}

/** The agent's own words are cut here: a notification is a line, not a transcript. */
export const WHY_MAX = 300;

/** A worktree as a notification names it: `shop.lanes/t-12` (the absolute path says who and where you are). */
export function shortPlace(worktree: string): string {
  return worktree.split('/').filter(Boolean).slice(-2).join('/');
}

/**
 * Its text, one sentence plus where: "fix-login (claude-code, T-12) is waiting for you: Claude
 * needs your permission to use Bash. In shop.lanes/t-12." (README "Attention and notifications":
 * the payload, field by field). `agentText` false: without the agent's own words.
 */
export function notifyText(e: NotifyEvent, agentText = true): string {
  const said = e.why?.replace(/[.\s]+$/, '') ?? '';
  const cut = said.length > WHY_MAX ? `${said.slice(0, WHY_MAX)}…` : said;
  const why = cut && agentText ? `: ${cut}` : '';
  const where = e.worktree ? ` In ${shortPlace(e.worktree)}.` : '';
  const dead =
    e.kind === 'died'
      ? ` \`lanes report\` shows what it left; \`${continueCommand({ id: e.session, ticket: e.ticket })}\` goes on with it.`
      : '';
  return `${who(e)} ${WHAT[e.kind]}${why}.${where}${dead}`;
}
