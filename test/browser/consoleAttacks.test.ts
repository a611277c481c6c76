// Attacks on the web console at browser level (issue #14), each named after the attack:
// - stored XSS through server metadata: a tool description holding `<script>` and
//   `<img src=x onerror=...>` (the class of the official Inspector's XSS-to-command-execution
//   advisory) is shown as inert text on the Tools page and in the Inspector;
// - XSS through a tool result: the same markup in a result is inert text in the Inspector;
// - clickjacking: the console framed by a page on another origin is refused;
// - cross-site request forgery: a page on another origin posting an answer to the console with
//   the person's cookie is refused, and the request still waits for the person;
// - the agent's MCP bearer token typed into the sign-in form does not open the console.
// "No script ran" is checked with a window flag every attack string would set.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { XSS_DESCRIPTION, XSS_RESULT } from './fixtures/xss.js';
import { openPage, startConsoleLab, type ConsoleLab } from './support/consoleLab.js';

let lab: ConsoleLab;
let attacker: Server;
let attackerOrigin: string;
/** The attacker's page, set per test. */
let attackerPage = '';

before(async () => {
  lab = await startConsoleLab();
  // Another origin on loopback: same host, another port.
  attacker = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(attackerPage));
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  attackerOrigin = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
});

after(async () => {
  await lab.stop();
  attacker.closeAllConnections();
  await new Promise((resolve) => attacker.close(resolve));
});

/** What the attack strings would have set, or undefined when no script of theirs ran. */
const xssFlag = (page: Page): Promise<unknown> => page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss);

/** Elements the markup would have created had it been parsed as HTML. */
async function injectedElements(page: Page): Promise<number> {
  return page.evaluate(() => document.querySelectorAll('img[src="x"], script:not([src]), [onerror]').length);
}

describe('console attacks in Chromium', () => {
  it('stored XSS in a tool description (<script>, <img onerror>): inert text on the Tools page and in the Inspector', async () => {
    const page = await lab.signedIn();
    await openPage(page, 'tools', 'Tools');
    const row = page.getByRole('table', { name: /Exposed tools/ }).getByRole('row', { name: /note/ });
    await row.waitFor();
    assert.equal(await row.locator('.description').textContent(), XSS_DESCRIPTION, 'the markup is shown literally');
    await openPage(page, 'inspector/lab', /Inspector: lab/);
    await page.getByRole('button', { name: 'note' }).click();
    assert.equal(await page.getByTestId('tool-description').textContent(), XSS_DESCRIPTION);
    assert.equal(await injectedElements(page), 0, 'no element was created from the markup');
    assert.equal(await xssFlag(page), undefined, 'no script of the description ran');
    await page.close();
  });

  it('XSS in a tool result (<script>, <img onerror>): inert text in the Inspector', async () => {
    const page = await lab.signedIn();
    await openPage(page, 'inspector/lab', /Inspector: lab/);
    await page.getByRole('button', { name: 'note' }).click();
    await page.getByRole('button', { name: 'Call tool' }).click();
    const text = page.getByTestId('tool-result').getByTestId('result-text').locator('pre');
    await text.waitFor();
    assert.equal(await text.textContent(), XSS_RESULT, 'the markup is shown literally');
    assert.equal(await injectedElements(page), 0, 'no element was created from the markup');
    assert.equal(await xssFlag(page), undefined, 'no script of the result ran');
    await page.close();
  });

  it('clickjacking: the console framed by a page on another origin is refused', async () => {
    attackerPage = `<!doctype html><title>prize</title><iframe id="victim" src="${lab.console.href}" width="800" height="600"></iframe>`;
    const page = await lab.signedIn();
    const framed = page.waitForResponse((r) => r.url() === lab.console.href);
    await page.goto(`${attackerOrigin}/`);
    const response = await framed;
    assert.match(response.headers()['content-security-policy'] ?? '', /frame-ancestors 'none'/);
    assert.equal(response.headers()['x-frame-options'], 'DENY');
    const frame = page.frames().find((f) => f !== page.mainFrame());
    assert.ok(frame !== undefined);
    // Chromium replaces a refused frame with its error page: nothing of the console loads in it.
    await page.waitForFunction(() => {
      const f = document.getElementById('victim') as HTMLIFrameElement;
      try {
        return f.contentDocument === null || f.contentDocument.readyState === 'complete';
      } catch {
        return true;
      }
    });
    assert.notEqual(frame.url(), lab.console.href, `the frame shows ${frame.url()}, not the console`);
    assert.equal(await frame.locator('#app').count(), 0, 'no console markup in the frame');
    await page.close();
  });

  it('cross-site request forgery: another origin\'s page posting an answer with the person\'s cookie is refused (403), and the request still waits', async () => {
    const { client: agent } = await lab.agent();
    const person = await lab.signedIn(); // the person is signed in: the cookie is in the browser
    await openPage(person, 'consent', 'Consent');
    const call = agent.callTool('echo', { message: 'csrf victim' });
    const card = person.getByTestId('consent-request').filter({ hasText: 'csrf victim' });
    await card.waitFor();
    const id = await card.getAttribute('data-id');
    assert.ok(id !== null);
    const target = new URL(`api/consent/${id}/approve`, lab.console).href;
    // The attack: a fetch with the cookie, and an auto-submitted form (a top-level POST).
    attackerPage = `<!doctype html><form id="f" method="POST" action="${target}" enctype="text/plain"><input name='{"scope":{"match":"tool","duration":"until","expiresAt":"2999-01-01T00:00:00Z"},"x":"' value='"}'></form>
      <script>fetch(${JSON.stringify(target)}, { method: 'POST', credentials: 'include', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: '{}' }).finally(() => document.getElementById('f').submit());</script>`;
    const page = await lab.browser.context.newPage();
    try {
      const fetchFailed = page.waitForEvent('requestfailed', (r) => r.url() === target && r.resourceType() === 'fetch');
      const formPost = page.waitForResponse((r) => r.url() === target && r.request().resourceType() === 'document');
      await page.goto(`${attackerOrigin}/`);
      // The fetch went out with the cookie and its answer is withheld from the other origin
      // (Cross-Origin-Resource-Policy); the form's top-level POST is answered 403.
      assert.match((await fetchFailed).failure()?.errorText ?? '', /BLOCKED_BY_RESPONSE/);
      const refused = await formPost;
      assert.equal(refused.status(), 403, 'the cross-origin form POST is refused');
      assert.match(await refused.text(), /origin/i);
      const pending = (await (await fetch(new URL('api/consent', lab.console), { headers: { authorization: `Bearer ${lab.adminToken}` } })).json()) as { requests: { id: string }[] };
      assert.ok(pending.requests.some((r) => r.id === id), 'neither post approved anything: the request still waits for the person');
    } finally {
      await card.getByRole('button', { name: 'Deny this call of echo' }).click();
    }
    assert.equal((await call).isError, true);
    await page.close();
    await person.close();
  });

  it('the agent\'s MCP bearer token typed into the sign-in form does not open the console', async () => {
    const page = await lab.browser.context.newPage();
    await lab.browser.context.clearCookies();
    await page.goto(lab.console.href);
    await page.getByLabel('Admin token').fill(lab.gateway.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    assert.equal(await page.getByRole('navigation', { name: 'Console pages' }).count(), 0);
    await page.close();
  });
});
