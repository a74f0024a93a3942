// lanes tell (issue 49, item 2, through the hooks): a person's message is journaled, pending until
// the agent's next hook call whose answer reaches its model, delivered there once as context, and
// journaled as delivered; a call that carries no context to the model (a turn's stop) does not
// count as delivery.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lanes } from '../helpers/env.js';
import { answer, fixture, hook, world } from '../helpers/hooks.js';

interface Told {
  seq: number;
  from: string;
  message: string;
  delivered: { via: string } | null;
}

/** The context an answer gives the model (nothing said: an empty answer, as an allow without a word is). */
function contextOf(r: { code: number | null; stdout: string; stderr: string }): string {
  assert.equal(r.code, 0, r.stderr);
  if (r.stdout.trim() === '') return '';
  const out = answer(r as never)['hookSpecificOutput'] as { additionalContext?: string } | undefined;
  return String(out?.additionalContext ?? '');
}

test('a message reaches the agent at its next tool call or prompt, once, and shows pending until then', async () => {
  const { repo, opts } = world();
  const id = 'claude-code:tell-1';
  assert.equal(
    (await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', repo, 'tell-1'), opts)).code,
    0,
  );

  const told = await lanes(['tell', id, 'rebase on main:', 'cart.test.ts fails after SHOP-9 landed'], opts);
  assert.equal(told.code, 0, told.stderr);
  assert.match(told.stdout, /^told claude-code:tell-1 \(#\d+\): pending until its agent's next tool call or turn/);
  const list = async () => JSON.parse((await lanes(['tell', id, '--list', '--json'], opts)).stdout) as Told[];
  assert.deepEqual(
    (await list()).map((t) => [t.message, t.delivered]),
    [['rebase on main: cart.test.ts fails after SHOP-9 landed', null]],
  );

  // The end of a turn says nothing to the model: still pending.
  const stop = await hook('claude-code', 'stop', fixture('claude-code', 'stop', repo, 'tell-1'), opts);
  assert.doesNotMatch(stop.stdout, /cart\.test\.ts/);
  assert.equal((await list())[0]!.delivered, null);

  // The next tool call carries it, once.
  const bash = fixture('claude-code', 'pre-tool-use-bash', repo, 'tell-1');
  const first = contextOf(await hook('claude-code', 'pre-tool-use', bash, opts));
  assert.match(
    first,
    /A message for you from .* \(lanes tell, \d{4}-\d\d-\d\d \d\d:\d\d UTC\): rebase on main: cart\.test\.ts fails after SHOP-9 landed/,
  );
  assert.deepEqual(
    (await list()).map((t) => t.delivered?.via),
    ['claude-code pre-shell'],
  );
  assert.doesNotMatch(contextOf(await hook('claude-code', 'pre-tool-use', bash, opts)), /cart\.test\.ts/);

  // Two more, then the person's next prompt: both, in order, in the prompt's context.
  assert.equal((await lanes(['tell', id, 'first'], opts)).code, 0);
  assert.equal((await lanes(['tell', id, 'second'], opts)).code, 0);
  const prompt = {
    ...fixture('claude-code', 'stop', repo, 'tell-1'),
    hook_event_name: 'UserPromptSubmit',
    prompt: 'go on',
  };
  const r = await hook('claude-code', 'user-prompt-submit', prompt, opts);
  assert.equal((answer(r)['hookSpecificOutput'] as { hookEventName: string }).hookEventName, 'UserPromptSubmit');
  assert.match(contextOf(r), /: first\n.*: second$/);
  assert.deepEqual(
    (await list()).map((t) => [t.message, t.delivered?.via]),
    [
      ['rebase on main: cart.test.ts fails after SHOP-9 landed', 'claude-code pre-shell'],
      ['first', 'claude-code prompt'],
      ['second', 'claude-code prompt'],
    ],
  );
  const text = await lanes(['tell', id, '--list'], opts);
  assert.match(text.stdout, /from .*: delivered .* \(claude-code prompt\)\n {4}second/);
  const log = await lanes(['log', '--kind', 'tell'], opts);
  assert.match(log.stdout, /told claude-code:tell-1: first/);
  assert.match(log.stdout, /reached claude-code:tell-1's agent \(claude-code prompt\)/);
});

test('careless input: no message, an empty or huge one, an unknown or ended session', async () => {
  const { repo, opts } = world();
  const id = 'claude-code:tell-2';
  await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', repo, 'tell-2'), opts);
  const none = await lanes(['tell', id], opts);
  assert.equal(none.code, 2, none.stderr);
  assert.match(none.stderr, /say what to tell it/);
  const blank = await lanes(['tell', id, '   '], opts);
  assert.equal(blank.code, 2);
  assert.match(blank.stderr, /the message is empty/);
  const huge = await lanes(['tell', id, 'x'.repeat(5000)], opts);
  assert.equal(huge.code, 2);
  assert.match(huge.stderr, /5000 characters \(at most 4000\)/);
  const unknown = await lanes(['tell', 'nobody-here', 'hi'], opts);
  assert.equal(unknown.code, 2, unknown.stderr);
  await hook('claude-code', 'session-end', fixture('claude-code', 'session-end', repo, 'tell-2'), opts);
  const ended = await lanes(['tell', id, 'too late'], opts);
  assert.equal(ended.code, 1, ended.stderr);
  assert.match(ended.stderr, /has ended: no agent is there to tell/);
  assert.deepEqual(JSON.parse((await lanes(['tell', id, '--list', '--json'], opts)).stdout), []);
});
