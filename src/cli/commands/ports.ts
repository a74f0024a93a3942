import { EXIT } from '../../core/errors.js';
import { PORTS_KEY } from '../../services/ports.js';
import type { CommandSpec } from '../command.js';
import { printJson, stateColor, table } from '../output.js';

export const command: CommandSpec = {
  name: 'ports',
  summary: 'List leased ports of this machine with their sessions and names.',
  usage: 'ports [--json]',
  options: {},
  maxPositionals: 0,
  async run(_args, io) {
    const lanes = await io.lanes();
    const held = (await lanes.claims.list({})).filter((h) => h.claim.kind === 'port');
    const rows = [];
    for (const h of held) {
      const st = (await lanes.state.get(h.claim.sessionId)) as Record<string, Record<string, number>> | undefined;
      const name = Object.entries(st?.[PORTS_KEY] ?? {}).find(([, p]) => String(p) === h.claim.name)?.[0] ?? null;
      rows.push({ port: Number(h.claim.name), name, session: h.claim.sessionId, state: h.state, token: h.claim.token });
    }
    if (io.json) printJson(io.stdout, rows);
    else if (rows.length === 0) io.stdout('no leased ports\n');
    else io.stdout(table(['PORT', 'NAME', 'SESSION', 'STATE'], rows.map((r) => [r.port, r.name, r.session, stateColor(r.state)])));
    return EXIT.ok;
  },
};
