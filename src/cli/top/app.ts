import { Box, Text, useApp, useInput, useWindowSize } from 'ink';
import { html } from 'htm/react';
import { useEffect, useState } from 'react';
import { GROUPS } from './fleet.js';
import type { Group, TopRow } from './fleet.js';

// `lanes top`'s screen (ink, React for terminals): the fleet in five groups, a row selected, the
// keys that act on it; a text view (the report, a session's work) scrolled in place.

export type Action = { kind: 'attach'; row: TopRow } | { kind: 'quit' };

export interface TopProps {
  /** The fleet now, read anew only when the store changed (main.ts). */
  load(): Promise<{ rows: TopRow[]; store: string } | null>;
  stop(row: TopRow): Promise<string>;
  report(width: number): Promise<string>;
  work(row: TopRow): Promise<string>;
  done(action: Action): void;
  everyMs: number;
}

const COLORS: Record<Group, string> = {
  'Needs you': 'red',
  'Waiting for input': 'magenta',
  Working: 'green',
  Finished: 'cyan',
  Died: 'red',
};

/** An age in at most 4 characters: 45s, 13m, 5h, 3d. */
export function short(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

function fit(text: string, width: number): string {
  return text.length <= width ? text.padEnd(width) : `${text.slice(0, Math.max(0, width - 1))}…`;
}

/** One row at `width` columns: ticket, label, agent, age, idle, spend, why, the fixed columns first. */
function line(r: TopRow, width: number): string {
  // An agent's own session id is long: its first part names it well enough beside its agent.
  const name = r.label ?? (r.id.includes(':') ? r.id.slice(r.id.indexOf(':') + 1, r.id.indexOf(':') + 9) : r.id);
  const fixed = `${fit(`${r.depth ? '└ ' : ''}${r.ticket ?? '-'}`, 10)} ${fit(name, 12)} ${fit(r.agent ?? '-', 11)} ${fit(short(r.age), 4)} ${fit(short(r.idle), 4)} ${fit(r.spent ?? '-', 6)}`;
  const rest = Math.max(0, width - fixed.length - 3);
  return `${fixed} ${fit(r.why.replace(/\s+/g, ' '), rest)}`;
}

function TextView(props: { title: string; text: string; height: number; back: () => void }) {
  const lines = props.text.split('\n');
  const [top, setTop] = useState(0);
  const page = Math.max(1, props.height - 3);
  useInput((input, key) => {
    if (input === 'q' || key.escape) props.back();
    if (key.downArrow || input === 'j') setTop((t) => Math.min(Math.max(0, lines.length - page), t + 1));
    if (key.upArrow || input === 'k') setTop((t) => Math.max(0, t - 1));
    if (key.pageDown || input === ' ') setTop((t) => Math.min(Math.max(0, lines.length - page), t + page));
    if (key.pageUp) setTop((t) => Math.max(0, t - page));
  });
  return html`<${Box} flexDirection="column">
    <${Text} bold>${props.title}<//>
    ${lines.slice(top, top + page).map((l, i) => html`<${Text} key=${i} wrap="truncate-end">${l || ' '}<//>`)}
    <${Text} dimColor>↑↓ scroll space page q back<//>
  <//>`;
}

export function App(props: TopProps) {
  const { exit } = useApp();
  const { columns, rows: height } = useWindowSize();
  const width = Math.max(40, Math.min(columns, 200));
  const [state, setState] = useState<{ rows: TopRow[]; store: string }>({ rows: [], store: '' });
  // Selected by id: rows move as the fleet changes, the selection stays on its session.
  const [selId, setSelId] = useState<string | null>(null);
  const [view, setView] = useState<{ title: string; text: string } | null>(null);
  const [ask, setAsk] = useState<TopRow | null>(null);
  const [said, setSaid] = useState('');
  useEffect(() => {
    let alive = true;
    const tick = async () => {
      const got = await props.load().catch((e: Error) => {
        setSaid(`lanes: ${e.message}`);
        return null;
      });
      if (alive && got) setState(got);
    };
    void tick();
    const t = setInterval(() => void tick(), props.everyMs);
    return () => {
      alive = false;
      clearInterval(t);
    };
  }, []);
  const rows = state.rows;
  const at = Math.max(
    0,
    rows.findIndex((r) => r.id === selId),
  );
  const selected = rows[at];
  const move = (by: number) => {
    const next = rows[Math.min(rows.length - 1, Math.max(0, at + by))];
    if (next) setSelId(next.id);
  };
  const leave = (action: Action) => {
    props.done(action);
    exit();
  };
  useInput(
    (input, key) => {
      if (ask) {
        if (input === 'y') void props.stop(ask).then(setSaid);
        setAsk(null);
        return;
      }
      if (input === 'q' || key.escape) leave({ kind: 'quit' });
      else if (key.downArrow || input === 'j') move(1);
      else if (key.upArrow || input === 'k') move(-1);
      else if (input === 'r') void props.report(width).then((text) => setView({ title: 'lanes report', text }));
      else if (!selected) return;
      else if ((input === 'a' || key.return) && selected.terminal?.startsWith('tmux '))
        leave({ kind: 'attach', row: selected });
      else if (input === 'a' || key.return)
        setSaid(`${selected.label ?? selected.id} has no tmux session to attach to`);
      else if (input === 's' && selected.live) setAsk(selected);
      else if (input === 'd')
        void props.work(selected).then((text) => setView({ title: `work of ${selected.id}`, text }));
    },
    { isActive: view === null },
  );
  if (view) return html`<${TextView} ...${view} height=${height} back=${() => setView(null)} />`;
  const counts = GROUPS.map((g) => [g, rows.filter((r) => r.group === g).length] as const);
  const lines: unknown[] = [];
  for (const [g, n] of counts) {
    if (n === 0) continue;
    lines.push(html`<${Text} key=${g} bold color=${COLORS[g]}>${g} (${n})<//>`);
    for (const r of rows.filter((x) => x.group === g)) {
      const on = r === selected;
      lines.push(
        html`<${Text} key=${r.id} inverse=${on} wrap="truncate-end">${on ? '›' : ' '} ${line(r, width - 2)}<//>`,
      );
    }
  }
  return html`<${Box} flexDirection="column" width=${width}>
    <${Text} bold wrap="truncate-end">lanes top · ${counts.map(([g, n]) => `${n} ${g.toLowerCase()}`).join(' · ')}<//>
    <${Text} dimColor
      >${fit(`  ${fit('TICKET', 10)} ${fit('LABEL', 12)} ${fit('AGENT', 11)} ${fit('AGE', 4)} ${fit('IDLE', 4)} ${fit('SPEND', 6)} WHAT`, width)}<//
    >
    ${lines.length ? lines : html`<${Text}>no sessions in the last 12 hours<//>`}
    ${ask ? html`<${Text} color="yellow">stop ${ask.label ?? ask.id}? its agent is asked to exit, its work saved (y/n)<//>` : ''}
    ${said ? html`<${Text} wrap="truncate-end">${said}<//>` : ''}
    <${Text} dimColor wrap="truncate-end">↑↓ select a attach s stop d work r report q quit<//>
  <//>`;
}
