// A real `switchboard gateway` (dist/cli/main.js, so `npm run build` first) with the console on,
// two downstream servers (our everything server and the console lab server), an MCP client for
// the agent's side, and a Chromium page signed in to the console.
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { McpClient } from '../../../src/client/mcpClient.js';
import { StreamableHttpClientTransport } from '../../../src/transport/http/client/client.js';
import { REPO_ROOT } from '../../interop/fixtures/ourServerHarness.js';
import { everythingEntry, startGateway, writeConfig, type GatewayConfig, type RunningGateway } from '../../interop/fixtures/gatewayHarness.js';
import { launchChromium, type Browser } from './chromium.js';

const labServer = fileURLToPath(new URL('../fixtures/labServer.ts', import.meta.url));

/** The `mcpServers` entry of the lab server. */
export function labEntry(): Record<string, unknown> {
  return { command: process.execPath, args: ['--import', 'tsx', labServer], cwd: REPO_ROOT };
}

/** A gateway with its console, a browser, and the credentials. */
export interface ConsoleLab {
  readonly config: GatewayConfig;
  readonly gateway: RunningGateway;
  readonly browser: Browser;
  /** `http://127.0.0.1:<port>/console/`. */
  readonly console: URL;
  readonly adminToken: string;
  /** An MCP client (the agent) connected to the gateway with the MCP bearer token. */
  agent(): Promise<Agent>;
  /** A new page signed in to the console. */
  signedIn(): Promise<Page>;
  stop(): Promise<void>;
}

/**
 * The settings the browser tests use: namespacing off, consent asked for every echo call, and
 * one policy rule (principal "intern" may not upgrade the lab) for the Policy page's dry run.
 */
export const LAB_SETTINGS = {
  namespacing: 'never',
  consent: { providers: ['queue'], ask: ['everything/echo'], timeoutMs: 60_000 },
  policy: { rules: [{ id: 'no-intern-upgrades', when: "server.id == 'lab' && tool.name == 'upgrade' && principal.id == 'intern'", outcome: 'deny', reason: 'upgrades are for admins' }] },
} as const;

/** The agent: an MCP client, and a wait for its next tools/list_changed notification. */
export interface Agent {
  readonly client: McpClient;
  /** Resolves on the next `notifications/tools/list_changed` (ask before causing it). */
  toolsChanged(): Promise<void>;
}

/** Starts the gateway (HTTP, port 0) and Chromium. */
export async function startConsoleLab(switchboard: Record<string, unknown> = LAB_SETTINGS): Promise<ConsoleLab> {
  const config = await writeConfig({ everything: everythingEntry(), lab: labEntry() }, switchboard);
  const [gateway, browser] = await Promise.all([startGateway(config), launchChromium()]);
  const adminToken = (await readFile(join(config.dir, '.switchboard', 'admin-token'), 'utf8')).trim();
  const consoleUrl = new URL('/console/', gateway.url);
  const clients: McpClient[] = [];
  const lab: ConsoleLab = {
    config,
    gateway,
    browser,
    console: consoleUrl,
    adminToken,
    agent: async () => {
      const waiting: (() => void)[] = [];
      const client = new McpClient({ name: 'agent', version: '1' }, { era: 'stateful', on: { toolsListChanged: () => waiting.splice(0).forEach((f) => f()) } });
      await client.connect(new StreamableHttpClientTransport({ url: gateway.url, headers: { authorization: `Bearer ${gateway.token}` } }));
      clients.push(client);
      return { client, toolsChanged: () => new Promise<void>((resolve) => waiting.push(resolve)) };
    },
    signedIn: async () => {
      const page = await browser.context.newPage();
      await signIn(page, consoleUrl, adminToken);
      return page;
    },
    stop: async () => {
      await Promise.allSettled(clients.map((c) => c.close()));
      await browser.close();
      await gateway.stop();
      await config.remove();
    },
  };
  return lab;
}

/**
 * Opens the console and signs in with the admin token through the form (as a person does),
 * unless the browser's session cookie is still good (then the pages show at once).
 */
export async function signIn(page: Page, consoleUrl: URL, adminToken: string): Promise<void> {
  await page.goto(consoleUrl.href);
  const nav = page.getByRole('navigation', { name: 'Console pages' });
  const field = page.getByLabel('Admin token');
  await nav.or(field).waitFor();
  if (await nav.isVisible()) return;
  await field.fill(adminToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Console pages' }).waitFor();
}

/** Goes to a console page by its hash route and waits for its heading. */
export async function openPage(page: Page, route: string, heading: string | RegExp): Promise<void> {
  await page.evaluate((hash) => (location.hash = hash), `#/${route}`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

/**
 * Takes a screenshot of the page. With `CONSOLE_SCREENSHOTS=1` it goes to docs/console/<name>.png
 * (shown in the README): `CONSOLE_SCREENSHOTS=1 node scripts/runTests.mjs test/browser` refreshes
 * them. Otherwise it goes to the temp folder, so a test run leaves the committed pictures alone.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  const path = process.env['CONSOLE_SCREENSHOTS'] === '1' ? join(REPO_ROOT, 'docs', 'console', `${name}.png`) : join(tmpdir(), `switchboard-console-${name}.png`);
  await page.screenshot({ path, fullPage: false });
}

/** The text of a tool result's text blocks. */
export function resultText(result: unknown): string {
  return ((result as { content?: { text?: string }[] }).content ?? []).map((c) => c.text ?? '').join('');
}
