import { EXIT, LanesError } from '../../core/errors.js';
import { deliverNotifications, testNotifications } from '../../index.js';
import type { CommandSpec } from '../command.js';
import { usageError } from '../command.js';
import { printJson } from '../output.js';

export const command: CommandSpec = {
  name: 'notify',
  summary: 'Try the notifications of [notify] (desktop, webhook) with `lanes notify test`.',
  usage: 'notify test [--json]',
  description: [
    'lanes tells you when an agent waits for you (a permission prompt, a question), finishes its turn,',
    'is denied a call, or dies, as [notify] in ~/.config/lanes/config.toml says:',
    '',
    // Short enough for 60 columns: an example wrapped would not read as TOML.
    '  [notify]',
    '  desktop = true   # notify-send (Linux), osascript (macOS)',
    '  webhook = "https://hooks.slack.com/services/…"',
    '  events = ["waiting", "denied", "died"]   # the default',
    '',
    'The webhook takes Slack-compatible JSON; events can also name "finished".',
    '',
    'Each event is notified once and journaled (notify.sent, or notify.fail after three tries of the',
    'webhook). A hook never waits for a notification: `lanes notify deliver` (started by lanes, detached)',
    'sends it. `lanes notify test` sends one now and says what each channel answered; exit 1 when one failed.',
  ].join('\n'),
  options: {},
  minPositionals: 1,
  maxPositionals: 1,
  examples: ['lanes notify test'],
  async run(args, io) {
    const what = args.positionals[0];
    if (what === 'deliver') {
      await deliverNotifications();
      return EXIT.ok;
    }
    if (what !== 'test') throw usageError(this, `unknown subcommand ${JSON.stringify(what)} (expected test)`);
    const { deliveries, channels } = await testNotifications();
    if (channels === 0)
      throw new LanesError('E_CONFIG', 'no notification channel is on', {
        hint: 'add [notify] desktop = true and/or webhook = "https://…" to ~/.config/lanes/config.toml (lanes notify --help)',
      });
    const failed = deliveries.filter((d) => !d.ok);
    if (io.json)
      printJson(
        io.stdout,
        deliveries.map(({ channel, ok, attempts, error }) => ({ channel, ok, attempts, error })),
      );
    else
      io.stdout(
        deliveries
          .map(
            (d) =>
              `${d.channel.padEnd(8)} ${d.ok ? 'sent' : `failed: ${d.error}`}${d.attempts > 1 ? ` (${d.attempts} tries)` : ''}`,
          )
          .join('\n') + '\n',
      );
    return failed.length > 0 ? EXIT.error : EXIT.ok;
  },
};
