// core/context-events.ts names, per agent, the hook events whose answer reaches the model: where
// lanes tell delivers (and journals as delivered). Checked against each adapter's own rendering:
// an event named there carries a decision's context in the agent's output; one left out does not
// (a message "delivered" there would never reach the model).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ADAPTERS } from '../../src/agents/index.js';
import { CONTEXT_EVENTS } from '../../src/core/context-events.js';
import { AGENTS } from '../../src/core/hook-event.js';
import type { HookKind } from '../../src/core/hook-event.js';
import { event } from '../helpers/hook-event.js';

const KINDS: HookKind[] = ['session-start', 'pre-edit', 'pre-shell', 'post-edit', 'prompt', 'stop', 'waiting'];

test('each agent carries context exactly at the hook events core/context-events.ts names', () => {
  for (const agent of AGENTS)
    for (const kind of KINDS) {
      const out = ADAPTERS[agent].render(event(kind, 'ctx-1', '/tmp', { agent }), {
        permission: 'allow',
        reason: null,
        context: 'CONTEXT-MARK-7f3',
        notice: null,
      });
      const carried = out.stdout.includes('CONTEXT-MARK-7f3');
      assert.equal(carried, CONTEXT_EVENTS[agent].includes(kind), `${agent} ${kind}: ${out.stdout}`);
    }
});
