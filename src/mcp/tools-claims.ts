import * as z from 'zod';
import { claimShape, defineTool, holderShape, plain, resourceText, resourcesInput, sessionShape } from './tool.js';

// Who am I, who else works here, and the claims: the tools an agent uses before it edits.

/** Bounded: an MCP request that waits longer than its client's timeout is cancelled anyway. */
export const MAX_WAIT_SECONDS = 300;

export const whoami = defineTool({
  name: 'whoami',
  title: 'Who am I (lanes session)',
  description:
    'Your lanes session: its id, ticket, worktree and the claims it holds. Every other lanes tool acts as this session; lanes found it from the agent process that started this server.',
  input: {},
  output: { session: sessionShape, how: z.string() },
  readOnly: true,
  async run(call) {
    const s = await call.lanes.sessions.get(call.session);
    const claims = s.claims.map((c) => `${resourceText(c)} (token ${c.token})`).join(', ') || 'none';
    return {
      data: { session: plain(s), how: call.how },
      text: `You are session ${s.id} (${s.state})${s.ticket ? `, ticket ${s.ticket}` : ''}${s.worktree ? `, worktree ${s.worktree}` : ''}. Claims: ${claims}.`,
    };
  },
});

/** Claims shown per session, and sessions at most with `all`: a model's context is not a log file. */
const CLAIMS_SHOWN = 20;
const ALL_SHOWN = 200;

export const sessions = defineTool({
  name: 'sessions',
  title: 'Sessions',
  description:
    'Other agent sessions and people working on this machine or team store: id, state (live, dead = owner gone, ended), agent, ticket, worktree and claims (the first 20 each, with their count). By default the live sessions and the dead ones still holding claims or unsaved work; all: every session, ended ones too (the first 200). Use it to see who else works in this repository before you start.',
  input: { all: z.boolean().optional().describe('every session, ended ones included (the first 200)') },
  output: {
    you: z.string(),
    sessions: z.array(sessionShape),
    notShown: z.number().describe('sessions left out: dead ones without claims or work, or past the first 200'),
  },
  readOnly: true,
  async run(call, args) {
    const { rows, notShown } =
      args.all === true
        ? await call.lanes.sessions
            .rows({ all: true, claimsShown: CLAIMS_SHOWN })
            .then((r) => ({ rows: r.slice(0, ALL_SHOWN), notShown: Math.max(0, r.length - ALL_SHOWN) }))
        : await call.lanes.sessions
            .overview({ claimsShown: CLAIMS_SHOWN })
            .then((o) => ({ rows: o.sessions, notShown: o.hidden + o.moreDead }));
    const lines = rows.map((s) => {
      const more = s.claimCount - s.claims.length;
      const claims = `${s.claims.map(resourceText).join(', ') || 'none'}${more > 0 ? ` and ${more} more` : ''}`;
      return `${s.id === call.session ? '* ' : '- '}${s.id} (${s.state})${s.agent ? ` ${s.agent}` : ''}${s.ticket ? ` ticket ${s.ticket}` : ''}${s.worktree ? ` in ${s.worktree}` : ''}; claims: ${claims}`;
    });
    const left = notShown > 0 ? `\n(${notShown} more not shown: \`lanes ls --all\` lists every session)` : '';
    return {
      data: { you: call.session, sessions: plain(rows), notShown },
      text: `${rows.length} session(s); * marks you:\n${lines.join('\n')}${left}`,
    };
  },
});

export const claim = defineTool({
  name: 'claim',
  title: 'Claim resources',
  description:
    'Claim resources for your session, all or none, before you work on them: other sessions are then refused edits of your claimed paths. Each grant has a fencing token. When another live session holds one, the call fails with E_CLAIM_HELD naming the holder, unless waitSeconds is given: then it waits up to that long for the holder to release (E_TIMEOUT after).',
  input: {
    resources: resourcesInput,
    waitSeconds: z
      .number()
      .min(0)
      .max(MAX_WAIT_SECONDS)
      .optional()
      .describe(`wait at most this long for held resources (0 or absent: do not wait; at most ${MAX_WAIT_SECONDS})`),
    scopeRepo: z.boolean().optional().describe('scope machine-wide kinds (not ticket/path/branch) to this repository'),
  },
  output: {
    grants: z.array(z.looseObject({ ref: z.looseObject({ kind: z.string(), name: z.string() }), token: z.number() })),
  },
  readOnly: false,
  async run(call, args) {
    const wait = (args.waitSeconds ?? 0) > 0;
    const grants = await call.lanes.claims.claim(args.resources, {
      session: call.session,
      signal: call.signal,
      ...(wait ? { wait: true, timeoutMs: Math.round((args.waitSeconds ?? 0) * 1000) } : {}),
      ...(args.scopeRepo ? { scope: 'repo' as const } : {}),
    });
    const lines = grants.map(
      (g) =>
        `claimed ${resourceText(g.ref)} (token ${g.token})${g.takenOver ? `, taken over from ${g.takenOver.claim.sessionId}: ${g.takenOver.why}` : ''}`,
    );
    return { data: { grants: plain(grants) }, text: lines.join('\n') };
  },
});

export const release = defineTool({
  name: 'release',
  title: 'Release claims',
  description:
    'Release claims your session holds, when you are done with them (ending the session releases all). Resources you did not hold are listed as notHeld; the others are still released.',
  input: { resources: resourcesInput },
  output: { released: z.array(claimShape), notHeld: z.array(z.looseObject({ kind: z.string(), name: z.string() })) },
  readOnly: false,
  async run(call, args) {
    const r = await call.lanes.claims.release(args.resources, { session: call.session });
    const text = [
      r.released.length ? `released ${r.released.map(resourceText).join(', ')}` : 'released nothing',
      r.notHeld.length ? `not held by you: ${r.notHeld.map(resourceText).join(', ')}` : '',
    ].filter(Boolean);
    return { data: plain(r), text: text.join('\n') };
  },
});

export const check = defineTool({
  name: 'check',
  title: 'Who holds a resource',
  description:
    'Who holds a resource or anything overlapping it (a path inside a claimed directory, a directory around a claimed file). heldByOther is true when another live session holds it: do not edit it, claim it with waitSeconds or coordinate.',
  input: {
    resource: z.string().min(1).describe('kind:name, e.g. "path:src/billing/invoice.ts" or "ticket:SEAT-42"'),
    scopeRepo: z.boolean().optional().describe('scope machine-wide kinds to this repository'),
  },
  output: { resource: z.string(), heldByOther: z.boolean(), holders: z.array(holderShape) },
  readOnly: true,
  async run(call, args) {
    const r = await call.lanes.claims.check(args.resource, args.scopeRepo ? { scope: 'repo' } : {});
    const others = r.holders.filter((h) => h.state === 'live' && h.claim.sessionId !== call.session);
    const lines = r.holders.map(
      (h) =>
        `${resourceText(h.claim)} held by ${h.claim.sessionId === call.session ? 'you' : h.claim.sessionId} (${h.state}${h.why ? `: ${h.why}` : ''}${h.session?.ticket ? `, ticket ${h.session.ticket}` : ''}), token ${h.claim.token}`,
    );
    return {
      data: { resource: resourceText(r.ref), heldByOther: others.length > 0, holders: plain(r.holders) },
      text: lines.length ? lines.join('\n') : `${resourceText(r.ref)} is free`,
    };
  },
});

export const claims = defineTool({
  name: 'claims',
  title: 'Claims',
  description:
    'Every claim of this repository and machine (all: every claim in the store) with its holder, the holder state and its ticket.',
  input: { all: z.boolean().optional().describe('every claim in the store') },
  output: { claims: z.array(holderShape) },
  readOnly: true,
  async run(call, args) {
    const list = await call.lanes.claims.list({ all: args.all === true });
    const lines = list.map(
      (h) =>
        `${resourceText(h.claim)} token ${h.claim.token}: ${h.claim.sessionId === call.session ? 'you' : h.claim.sessionId} (${h.state})`,
    );
    return { data: { claims: plain(list) }, text: lines.length ? lines.join('\n') : 'no claims' };
  },
});
