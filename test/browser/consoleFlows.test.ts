// The web console in real Chromium against a real gateway (issue #14, "Must show"): sign in;
// approve a quarantined tool and see the agent's call succeed; answer consent requests while
// the agent's call waits (approve: it completes; deny: the error reaches the agent); run a tool
// from the Inspector; verify the audit chain, tamper the SQLite file, and see the record
// flagged. Each page is photographed into docs/console/ for the README.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { openPage, resultText, screenshot, signIn, startConsoleLab, type ConsoleLab } from './support/consoleLab.js';

let lab: ConsoleLab;

/** Calls everything's `test_elicitation` from the Inspector; resolves once its question is on the page. */
async function askFromInspector(message: string) {
  const page = await lab.signedIn();
  await openPage(page, 'inspector/everything', /Inspector: everything/);
  await page.getByRole('button', { name: 'test_elicitation', exact: true }).click();
  await page.getByLabel(/^message/).fill(message);
  await page.getByRole('button', { name: 'Call tool' }).click();
  const question = page.getByRole('group', { name: 'Question from everything' });
  await question.getByText(message).waitFor();
  return { page, question };
}

before(async () => {
  lab = await startConsoleLab();
});

after(async () => {
  await lab.stop();
});

describe('console in Chromium: sign-in and pages', () => {
  it('signs in with the admin token (a wrong one is refused on the page) and shows both servers ready on the Overview', async () => {
    const page = await lab.browser.context.newPage();
    await page.goto(lab.console.href);
    await page.getByLabel('Admin token').fill('not-the-admin-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    assert.match((await page.getByRole('alert').textContent()) ?? '', /admin token/i);
    await page.getByLabel('Admin token').fill('');
    await screenshot(page, 'sign-in');
    await signIn(page, lab.console, lab.adminToken);
    const servers = page.getByRole('table', { name: 'Downstream servers' });
    await servers.getByRole('row', { name: /everything/ }).getByText('ready').waitFor();
    await servers.getByRole('row', { name: /lab/ }).getByText('ready').waitFor();
    await page.getByRole('img', { name: /Calls per second/ }).waitFor();
    await screenshot(page, 'overview');
    await page.close();
  });

  it('Tools lists every exposed tool with its server, trust level and scanner verdict', async () => {
    const page = await lab.signedIn();
    await openPage(page, 'tools', 'Tools');
    const tools = page.getByRole('table', { name: /Exposed tools/ });
    const lookup = tools.getByRole('row', { name: /^lookup / });
    await lookup.waitFor();
    assert.match((await lookup.textContent()) ?? '', /lab/);
    assert.match((await lookup.textContent()) ?? '', /first-use/);
    await tools.getByRole('row', { name: /echo/ }).first().waitFor();
    await screenshot(page, 'tools');
    await page.close();
  });

  it('Policy shows the rules, and a dry run names the rule that denies the call', async () => {
    const page = await lab.signedIn();
    await openPage(page, 'policy', 'Policy');
    await page.getByRole('table', { name: /Rules/ }).getByText('no-intern-upgrades').waitFor();
    await page.getByLabel('Server').fill('lab');
    await page.getByLabel('Tool').fill('upgrade');
    await page.getByLabel('Principal (optional)').fill('intern');
    await page.getByRole('button', { name: 'Run dry run' }).click();
    const result = page.getByTestId('dry-run-result');
    await result.waitFor();
    assert.match((await result.textContent()) ?? '', /Decision: deny/);
    assert.match((await result.textContent()) ?? '', /no-intern-upgrades/);
    await screenshot(page, 'policy');
    await page.close();
  });
});

describe('console in Chromium: the person acts', () => {
  it('a quarantined tool approved on the Review page: the agent\'s call succeeds afterwards (the diff shows the hidden U+200B)', async () => {
    const { client: agent, toolsChanged } = await lab.agent();
    assert.equal(resultText(await agent.callTool('lookup', { word: 'pin' })), 'pin: a word', 'first use: pinned');
    const changed = toolsChanged();
    await agent.callTool('upgrade', {});
    await changed;
    const refused = await agent.callTool('lookup', { word: 'pin', examples: true });
    assert.equal(refused.isError, true);
    assert.match(resultText(refused), /changed since it was approved/);

    const page = await lab.signedIn();
    await openPage(page, 'review', 'Review');
    const item = page.getByTestId('review-item').filter({ hasText: 'lookup' });
    await item.waitFor();
    await item.getByTitle('hidden character U+200B').waitFor();
    assert.match((await item.getByRole('table').textContent()) ?? '', /Also gives⟦U\+200B⟧ example sentences\./);
    // The scanner's findings beside the diff (the hidden U+200B); Approve waits for "I have read the findings" (issue #32).
    assert.match((await item.getByTestId('review-findings').textContent()) ?? '', /hidden-unicode\//);
    const approve = item.getByRole('button', { name: 'Approve tool lookup on lab' });
    assert.equal(await approve.isDisabled(), true, 'approve is disabled until the findings are acknowledged');
    await item.getByLabel('I have read the findings of tool lookup on lab').check();
    await screenshot(page, 'review');
    const approved = toolsChanged();
    await approve.click();
    await page.getByRole('status').filter({ hasText: 'Approved tool lookup on lab' }).waitFor();
    await approved;
    assert.equal(resultText(await agent.callTool('lookup', { word: 'pin', examples: true })), 'pin: a word (with examples)');
    await page.close();
  });

  it('consent approved on the Consent page while the agent\'s call waits: the call completes', async () => {
    const { client: agent } = await lab.agent();
    const page = await lab.signedIn();
    await openPage(page, 'consent', 'Consent');
    await page.getByTestId('queue-empty').waitFor();
    const call = agent.callTool('echo', { message: 'lunch at noon, to bob' });
    // Pushed to the open page by the event stream (the page does not poll).
    const card = page.getByTestId('consent-request').filter({ hasText: 'lunch at noon, to bob' });
    await card.waitFor();
    assert.match((await card.textContent()) ?? '', /every call of everything\/echo/);
    await screenshot(page, 'consent');
    await card.getByRole('button', { name: 'Approve this call of echo once' }).click();
    assert.match(resultText(await call), /lunch at noon, to bob/);
    await card.waitFor({ state: 'detached' });
    await page.close();
  });

  it('consent denied on the Consent page: the error and the reason reach the agent', async () => {
    const { client: agent } = await lab.agent();
    const page = await lab.signedIn();
    await openPage(page, 'consent', 'Consent');
    const call = agent.callTool('echo', { message: 'the private key, to eve' });
    const card = page.getByTestId('consent-request').filter({ hasText: 'the private key, to eve' });
    await card.waitFor();
    await card.getByLabel('Reason for denying (optional)').fill('not to eve');
    await card.getByRole('button', { name: 'Deny this call of echo' }).click();
    const refused = await call;
    assert.equal(refused.isError, true);
    assert.match(resultText(refused), /Denied by consent: .*not to eve/);
    await page.close();
  });

  it('a tool run from the Inspector: text, image and structured content shown, and the call audited as console:admin', async () => {
    const page = await lab.signedIn();
    await openPage(page, 'inspector/lab', /Inspector: lab/);
    await page.getByRole('button', { name: 'picture' }).click();
    await page.getByLabel(/^label/).fill('sales');
    await page.getByLabel(/^points/).fill('3');
    await page.getByRole('button', { name: 'Call tool' }).click();
    const result = page.getByTestId('tool-result');
    await result.getByText('Chart "sales" with 3 points').waitFor();
    await result.getByRole('img', { name: /Image 2 of the result \(image\/svg\+xml\)/ }).waitFor();
    assert.match((await result.getByLabel('Structured content').textContent()) ?? '', /"label": "sales",\s*"points": 3/);
    await screenshot(page, 'inspector');

    await openPage(page, 'audit', 'Audit');
    await page.getByLabel('Principal').fill('console:admin');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('table', { name: /Records/ }).getByRole('row', { name: /picture/ }).first().waitFor();
    await page.close();
  });

  it('a server asks during an Inspector call: the question passes the chain (audited as console:admin), its requestedSchema is a form, and the answer reaches the server', { timeout: 60_000 }, async () => {
    const { page, question } = await askFromInspector('Who is at the console?');
    await question.getByLabel(/^username/).fill('ada');
    await question.getByLabel(/^email/).fill('ada@example.org');
    await question.getByRole('button', { name: 'Accept' }).click();
    const result = page.getByTestId('tool-result');
    // The tool's own text: what the server received as the answer.
    await result.getByText('User response: action=accept, content={"username":"ada","email":"ada@example.org"}').waitFor();
    await question.waitFor({ state: 'detached' });

    await openPage(page, 'audit', 'Audit');
    await page.getByLabel('Principal').fill('console:admin');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('table', { name: /Records/ }).getByRole('row', { name: /server\/request \(elicitation\/create\)/ }).first().waitFor();
    await page.close();
  });

  it('a question declined in the Inspector: the server gets "decline" and no content', { timeout: 60_000 }, async () => {
    const { page, question } = await askFromInspector('Share your email?');
    await question.getByLabel(/^username/).fill('typed-but-not-sent');
    await question.getByRole('button', { name: 'Decline' }).click();
    await page.getByTestId('tool-result').getByText('User response: action=decline, content={}').waitFor();
    assert.doesNotMatch((await page.getByTestId('tool-result').textContent()) ?? '', /typed-but-not-sent/);
    await page.close();
  });

  it('audit: "Verify chain" says intact; after a record is edited in the SQLite file it names and marks that record', async () => {
    const page = await lab.signedIn();
    await openPage(page, 'audit', 'Audit');
    await page.getByRole('button', { name: 'Verify chain' }).click();
    await page.getByTestId('verify-result').filter({ hasText: /Chain intact/ }).waitFor();

    const rows = page.getByRole('table', { name: /Records/ }).getByRole('row');
    await rows.nth(1).waitFor();
    const db = new Database(join(lab.config.dir, '.switchboard', 'audit.db'));
    let victim: number;
    try {
      const row = db.prepare("SELECT seq FROM audit WHERE line LIKE '%\"outcome\":\"ok\"%' ORDER BY seq LIMIT 1 OFFSET 2").get() as { seq: number };
      victim = row.seq;
      db.prepare("UPDATE audit SET line = replace(line, '\"outcome\":\"ok\"', '\"outcome\":\"denied\"') WHERE seq = ?").run(victim);
    } finally {
      db.close();
    }
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Audit' }).waitFor();
    await page.getByRole('button', { name: 'Verify chain' }).click();
    const verdict = page.getByTestId('verify-result');
    await verdict.filter({ hasText: `Chain broken at record #${victim}` }).waitFor();
    await page.getByRole('alert').getByText(new RegExp(`#${victim}: `)).waitFor();
    await screenshot(page, 'audit');
    await page.close();
  });
});
