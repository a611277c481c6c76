// The console's Connections page in real Chromium against a real gateway (issue #34's admin
// view): a connection seeded in the gateway's own store (SQLite in its state folder, sealed with
// its connections key) is listed without its token, and the Revoke button removes it from the
// store the gateway reads (checked by opening that store again), leaving the other one, and the
// gateway's audit log records the revocation.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { everythingEntry, startGateway, writeConfig, type GatewayConfig, type RunningGateway } from '../interop/fixtures/gatewayHarness.js';
import { launchChromium, type Browser } from './support/chromium.js';
import { seedConnections, seededConnection, storedPrincipals } from './support/connections.js';
import { openPage, signIn } from './support/consoleLab.js';

const NOW = Date.now();

let config: GatewayConfig;
let gateway: RunningGateway;
let browser: Browser;
let stateDir: string;

before(async () => {
  config = await writeConfig({ everything: everythingEntry() });
  stateDir = join(config.dir, '.switchboard');
  // Seeded before the gateway starts: the store and its key are in the state folder, as a sign-in leaves them.
  await seedConnections(stateDir, [seededConnection('alice@example.com', NOW), seededConnection('bob@example.com', NOW)]);
  [gateway, browser] = await Promise.all([startGateway(config, [], [], { SWITCHBOARD_CONNECTIONS_KEY: '' }), launchChromium()]);
}, { timeout: 60_000 });

after(async () => {
  await browser?.close();
  await gateway?.stop();
  await config?.remove();
}, { timeout: 30_000 });

describe('console in Chromium: Connections', () => {
  it('lists a seeded connection without its token, and Revoke removes exactly it from the gateway store', { timeout: 60_000 }, async () => {
    const adminToken = (await readFile(join(stateDir, 'admin-token'), 'utf8')).trim();
    const page = await browser.context.newPage();
    await signIn(page, new URL('/console/', gateway.url), adminToken);
    await openPage(page, 'connections', 'Connections');
    const table = page.getByRole('table', { name: 'Per-user connections' });
    const alice = table.getByRole('row', { name: /alice@example\.com/ });
    await alice.waitFor();
    const text = (await alice.textContent()) ?? '';
    assert.match(text, /github/);
    assert.match(text, /per-user/);
    assert.match(text, /repo/);
    assert.doesNotMatch(await page.content(), /SECRET/, 'no token on the page');
    await page.getByRole('button', { name: 'Revoke the connection of alice@example.com at github' }).click();
    await page.getByRole('status').filter({ hasText: /Revoked the connection of alice@example\.com/ }).waitFor();
    await alice.waitFor({ state: 'detached' });
    await table.getByRole('row', { name: /bob@example\.com/ }).waitFor();
    assert.deepEqual(await storedPrincipals(stateDir), ['bob@example.com']);
    // The gateway's audit log has the revocation, by console:admin (read as the page reads it).
    const audit = (await page.evaluate(async () => (await fetch('/console/api/audit?kind=connection')).json())) as { records: { method: string; principal: string; name?: string }[] };
    assert.deepEqual(audit.records.map((r) => [r.method, r.principal, r.name]), [['connections/revoke', 'console:admin', 'alice@example.com']]);
    await page.close();
  });
});
