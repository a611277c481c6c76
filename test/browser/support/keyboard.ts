// Keyboard and accessibility checks for the browser tests: reach a control with Tab alone
// (and see the focus ring), and list the controls of a page that have no accessible name
// (from Chromium's own accessibility tree, the one screen readers get).
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';

/** Roles a person operates; each needs an accessible name. */
const CONTROL_ROLES = new Set(['button', 'link', 'textbox', 'searchbox', 'checkbox', 'radio', 'combobox', 'listbox', 'spinbutton', 'tab', 'menuitem', 'switch', 'slider']);

/**
 * Presses Tab (from wherever the focus is) until `target` has the focus, at most `limit` times;
 * fails if it never does. Then checks the focus is visible (an outline is drawn).
 */
export async function tabTo(page: Page, target: Locator, limit = 80): Promise<void> {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    if (await target.evaluate((el) => el === document.activeElement)) {
      const outline = await target.evaluate((el) => {
        const style = getComputedStyle(el);
        return style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0;
      });
      assert.ok(outline, `the focused control has a visible focus ring`);
      return;
    }
  }
  assert.fail(`not reachable with Tab in ${limit} presses: ${await target.evaluate((el) => el.outerHTML.slice(0, 120))}`);
}

/** The controls on the page (role and name) whose accessible name is empty. */
export async function unnamedControls(page: Page): Promise<string[]> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as { nodes: { ignored?: boolean; role?: { value?: string }; name?: { value?: string } }[] };
    return nodes
      .filter((n) => n.ignored !== true && CONTROL_ROLES.has(String(n.role?.value)) && String(n.name?.value ?? '').trim() === '')
      .map((n) => String(n.role?.value));
  } finally {
    await cdp.detach();
  }
}

/** The number of controls on the page (so a check of names is not vacuous). */
export async function controlCount(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as { nodes: { ignored?: boolean; role?: { value?: string } }[] };
    return nodes.filter((n) => n.ignored !== true && CONTROL_ROLES.has(String(n.role?.value))).length;
  } finally {
    await cdp.detach();
  }
}
