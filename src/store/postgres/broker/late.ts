import { brokerEndpoint } from './endpoint.js';
import { brokerPlace, brokerWanted } from './place.js';
import type { BrokerPlace } from './place.js';

// When a call went straight to the server although a broker was wanted: the broker did not answer
// in time (a loaded host, a broker still starting). On a full server that call would be refused.

/** Whether this store should go through a broker (wanted, and there can be one here). */
export function brokerExpected(connectionString: string, direct: boolean | undefined): boolean {
  return !direct && brokerWanted(process.env) && brokerPlace(connectionString, process.env) !== null;
}

/**
 * The server refused a direct connection as full (53300) while a broker was expected: the broker,
 * after a last, shorter wait for it (its clients wait for a connection there rather than be refused
 * here), or null (the refusal stands).
 */
export async function lateBroker(e: unknown, connectionString: string): Promise<BrokerPlace | null> {
  const code = ((e as { cause?: { code?: string } }).cause ?? (e as { code?: string })).code;
  if (code !== '53300' || !brokerExpected(connectionString, false)) return null;
  return brokerEndpoint(connectionString, { ...process.env, LANES_BROKER_START_MS: '1500' });
}
