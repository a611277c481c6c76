// Starts Debian's Chromium (/usr/bin/chromium, which .ci/run installs) through playwright-core,
// headless, with a fresh profile in a temp folder, and with everything that would reach the
// network switched off: the machine's network is closed, and without these flags Chromium keeps
// retrying component updates, sync and QUIC probes against refused connections.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Where the browser is (Debian's package). */
export const CHROMIUM = '/usr/bin/chromium';

/** The flags every launch gets. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
] as const;

/** A running browser: one context (a fresh profile) and its close. */
export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** Launches headless Chromium with a fresh user-data-dir (removed on close). */
export async function launchChromium(): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), 'sb-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [...CHROMIUM_ARGS],
    viewport: { width: 1280, height: 860 },
    locale: 'en-US',
    timezoneId: 'UTC',
    reducedMotion: 'reduce',
  });
  // A console page answers in milliseconds: fail fast rather than after playwright's 30 s.
  context.setDefaultTimeout(10_000);
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
