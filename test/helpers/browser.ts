// A real browser for the dashboard's tests: Debian's Chromium (installed by .ci/run) driven by
// playwright-core, headless, without the sandbox when root (Chromium refuses to start sandboxed as
// root) and without background networking (no calls home from a test).
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser, ConsoleMessage, Page } from 'playwright-core';
import { ROOT } from './env.js';

export const CHROMIUM = process.env['LANES_TEST_CHROMIUM'] ?? '/usr/bin/chromium';
/** Screenshots of the browser tests (ignored by git). */
export const SHOTS = join(ROOT, 'test-results', 'ui');

/** Why the browser tests cannot run here, or null. On CI a missing browser is a failure, not a skip. */
export function browserMissing(): string | null {
  if (existsSync(CHROMIUM)) return null;
  const why = `no Chromium at ${CHROMIUM} (apt-get install chromium, or set LANES_TEST_CHROMIUM)`;
  if (process.env['CI']) throw new Error(why);
  return why;
}

export async function launch(): Promise<Browser> {
  mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}

/** Every console error and uncaught exception of a page, to assert none happened. */
export function consoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m: ConsoleMessage) => {
    if (m.type() === 'error') errors.push(`${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('response', (r) => {
    if (r.status() >= 400) errors.push(`HTTP ${r.status()} ${r.request().method()} ${r.url()}`);
  });
  return errors;
}
