// Keyboard use and labelled controls on every console page (issue #14): each page is reached
// from the navigation with Tab and Enter alone, with a visible focus ring; every control on it
// has an accessible name in Chromium's accessibility tree; and each page's main action works
// from the keyboard (filter, approve, answer consent, verify, dry run, call a tool).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openPage, resultText, startConsoleLab, type ConsoleLab } from './support/consoleLab.js';
import { controlCount, tabTo, unnamedControls } from './support/keyboard.js';

let lab: ConsoleLab;

before(async () => {
  lab = await startConsoleLab();
});

after(async () => {
  await lab.stop();
});

const PAGES = [
  ['Overview', 'Overview'],
  ['Tools', 'Tools'],
  ['Review', 'Review'],
  ['Consent', 'Consent'],
  ['Connections', 'Connections'],
  ['Audit', 'Audit'],
  ['Policy', 'Policy'],
  ['Inspector', /Inspector/],
] as const;

describe('console keyboard and labels', () => {
  it('every page is reached from the navigation by Tab and Enter, with a visible focus ring, and every control on it has an accessible name', async () => {
    const page = await lab.signedIn();
    for (const [link, heading] of PAGES) {
      await page.locator('body').focus();
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await tabTo(page, page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: link, exact: true }));
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      await page.getByRole('main').getByRole('status').filter({ hasText: 'Loading' }).waitFor({ state: 'detached' });
      assert.ok((await controlCount(page)) > 8, `${link}: the page has controls`);
      assert.deepEqual(await unnamedControls(page), [], `${link}: every control has an accessible name`);
      assert.equal(await page.getByRole('main').count(), 1, `${link}: one main landmark`);
      assert.equal(await page.getByRole('banner').count(), 1, `${link}: one banner landmark`);
    }
    await page.close();
  });

  it('the sign-in form works from the keyboard alone and its field is labelled', async () => {
    const page = await lab.browser.context.newPage();
    await lab.browser.context.clearCookies();
    await page.goto(lab.console.href);
    await tabTo(page, page.getByLabel('Admin token'));
    await page.keyboard.type(lab.adminToken);
    await page.keyboard.press('Enter');
    await page.getByRole('navigation', { name: 'Console pages' }).waitFor();
    await page.close();
  });

  it('main actions by keyboard: filter tools, approve a quarantined tool, answer consent, verify the chain, run a dry run, call a tool', async () => {
    const { client: agent, toolsChanged } = await lab.agent();
    const page = await lab.signedIn();

    await openPage(page, 'tools', 'Tools');
    await tabTo(page, page.getByLabel('Filter tools'));
    await page.keyboard.type('pictu');
    await page.getByRole('table', { name: 'Exposed tools (1)' }).waitFor();

    await agent.callTool('lookup', { word: 'x' });
    const changed = toolsChanged();
    await agent.callTool('upgrade', {});
    await changed;
    await openPage(page, 'review', 'Review');
    const approved = toolsChanged();
    // Approve waits for "I have read the findings" (issue #32): ticked with Space, by keyboard too.
    await tabTo(page, page.getByLabel('I have read the findings of tool lookup on lab'));
    await page.keyboard.press('Space');
    await tabTo(page, page.getByRole('button', { name: 'Approve tool lookup on lab' }));
    await page.keyboard.press('Enter');
    await approved;
    assert.equal(resultText(await agent.callTool('lookup', { word: 'x' })), 'x: a word');

    await openPage(page, 'consent', 'Consent');
    await page.getByTestId('queue-empty').waitFor();
    const call = agent.callTool('echo', { message: 'by keyboard' });
    const approve = page.getByRole('button', { name: 'Approve this call of echo once' });
    await approve.waitFor();
    await tabTo(page, approve);
    await page.keyboard.press('Enter');
    assert.match(resultText(await call), /by keyboard/);

    await openPage(page, 'audit', 'Audit');
    await tabTo(page, page.getByRole('button', { name: 'Verify chain' }));
    await page.keyboard.press('Enter');
    await page.getByTestId('verify-result').filter({ hasText: /Chain intact/ }).waitFor();

    await openPage(page, 'policy', 'Policy');
    await tabTo(page, page.getByLabel('Server'));
    await page.keyboard.type('lab');
    await page.keyboard.press('Tab');
    await page.keyboard.type('picture');
    await page.keyboard.press('Enter');
    // The result first, then its decision: a timeout would not say what was decided instead.
    const dryRun = page.getByTestId('dry-run-result');
    await dryRun.waitFor({ timeout: 30_000 });
    assert.match(await dryRun.innerText(), /Decision:\s*allow/, `dry run of lab/picture: ${await dryRun.innerText()}`);

    await openPage(page, 'inspector/lab', /Inspector: lab/);
    await tabTo(page, page.getByRole('button', { name: 'picture' }));
    await page.keyboard.press('Enter');
    await tabTo(page, page.getByLabel(/^label/));
    await page.keyboard.type('keys');
    await page.keyboard.press('Enter');
    await page.getByTestId('tool-result').getByText('Chart "keys" with 4 points').waitFor();
    await page.close();
  });
});
