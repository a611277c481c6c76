// The console's My connections page in real Chromium against a real gateway (issue #34's
// person's view): a gateway with named tokens (gateway.auth.tokens: alice, bob), connections of
// both seeded in its own store (SQLite in its state folder, sealed with its connections key).
// Alice signs in with her own named token: she sees only her connection (no token, no admin
// navigation), revokes it after the confirmation, and the store the gateway reads (opened again)
// keeps Bob's; her session is refused the admin API; the audit log names her as the actor.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { everythingEntry, startGateway, writeConfig, type GatewayConfig, type RunningGateway } from '../interop/fixtures/gatewayHarness.js';
import { launchChromium, type Browser } from './support/chromium.js';
import { seedConnections, seededConnection, storedPrincipals } from './support/connections.js';
import { signIn } from './support/consoleLab.js';

const NOW = Date.now();
const ALICE = 'alice-named-token-'.padEnd(43, 'a');
const BOB = 'bob-named-token-'.padEnd(43, 'b');

let config: GatewayConfig;
let gateway: RunningGateway;
let browser: Browser;
let stateDir: string;

before(async () => {
  config = await writeConfig(
    { everything: everythingEntry() },
    {
      gateway: {
        auth: {
          tokens: [
            { name: 'alice', token: '${env:ALICE_TOKEN}' },
            { name: 'bob', token: '${env:BOB_TOKEN}' },
          ],
        },
      },
    },
  );
  stateDir = join(config.dir, '.switchboard');
  await seedConnections(stateDir, [seededConnection('alice', NOW), seededConnection('bob', NOW)]);
  [gateway, browser] = await Promise.all([startGateway(config, [], [], { SWITCHBOARD_CONNECTIONS_KEY: '', ALICE_TOKEN: ALICE, BOB_TOKEN: BOB }), launchChromium()]);
}, { timeout: 60_000 });

after(async () => {
  await browser?.close();
  await gateway?.stop();
  await config?.remove();
}, { timeout: 30_000 });

describe('console in Chromium: My connections (a person signed in with a named token)', () => {
  it("lists only the person's own connection without its token, no admin pages; Revoke (confirmed) removes exactly it from the gateway store", { timeout: 60_000 }, async () => {
    const page = await browser.context.newPage();
    await page.goto(new URL('/console/', gateway.url).href);
    await page.getByLabel('Your gateway token').fill(ALICE);
    await page.getByRole('button', { name: 'Open my connections', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'My connections' }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Console pages' });
    assert.deepEqual(await nav.getByRole('link').allTextContents(), ['My connections'], 'no admin navigation');
    const table = page.getByRole('table', { name: 'My connections' });
    const row = table.getByRole('row', { name: /github/ });
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', /per-user.*repo/s);
    const content = await page.content();
    assert.doesNotMatch(content, /SECRET/, 'no token on the page');
    assert.doesNotMatch(content, /bob/, "no one else's connection");
    // The person's session is refused the admin API (read as the page would).
    const admin = await page.evaluate(async () => (await fetch('/console/api/connections')).status);
    assert.equal(admin, 403);
    await page.getByRole('button', { name: 'Revoke my connection to github' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Revoke your connection to github?' });
    await dialog.getByRole('button', { name: 'Yes, revoke' }).click();
    await page.getByRole('status').filter({ hasText: /Revoked your connection/ }).waitFor();
    await row.waitFor({ state: 'detached' });
    assert.deepEqual(await storedPrincipals(stateDir), ['bob']);
    await page.close();
    // The admin's audit view has the revocation with Alice as the actor.
    const adminToken = (await readFile(join(stateDir, 'admin-token'), 'utf8')).trim();
    const adminPage = await browser.context.newPage();
    await adminPage.context().clearCookies();
    await signIn(adminPage, new URL('/console/', gateway.url), adminToken);
    const audit = (await adminPage.evaluate(async () => (await fetch('/console/api/audit?kind=connection')).json())) as { records: { method: string; principal: string; name?: string }[] };
    assert.deepEqual(audit.records.map((r) => [r.method, r.principal, r.name]), [['connections/revoke', 'console:person:alice', 'alice']]);
    await adminPage.close();
  });
});
