// What the store tests build their worlds from: a session record and a liveness judge that treats
// pid 666 as dead, so the rules can be tested on any backend without real processes.
import type { GateHolder, NewSession, OwnerJudge } from '../../src/store/types.js';

export const DEAD_PID = 666;

export const judge: OwnerJudge = (owners) =>
  owners.map(({ owner }) =>
    owner.pid === DEAD_PID ? { live: false, why: 'dead for the test' } : { live: true, why: '' },
  );

export function session(id: string, pid = 100): NewSession {
  return {
    id,
    label: `label ${id}`,
    agent: 'test',
    ticket: 'SEAT-1',
    repo: '/r/.git',
    worktree: '/r',
    cwd: '/r',
    owner: { host: 'h', bootId: 'b', pid, startTime: '1' },
    command: null,
  };
}

/** A gate holder of no session, owned by `pid`. */
export function holder(pid: number): GateHolder {
  return { owner: { host: 'h', bootId: 'b', pid, startTime: '1' }, sessionId: null, command: 'test' };
}
