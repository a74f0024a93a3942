import type { CommandSpec } from '../command.js';
export const command: CommandSpec = { name: 'demo', summary: 'demo', usage: 'demo', options: {}, async run() { return 0; } };
