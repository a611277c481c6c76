// @ts-check
/**
 * The one place the pages get their UI runtime from: Preact's `h` bound to htm's tagged
 * templates, and the hooks. `../vendor/` is written by `npm run build` next to the copied pages
 * in dist/console/ (preact, its hooks and htm from node_modules; no CDN, no import map, since
 * the strict Content-Security-Policy allows no inline script). For the type check the same
 * paths resolve to re-exports of the packages' own types (test/types/consoleVendor/).
 *
 * htm builds elements with `h`, never with innerHTML: every interpolated value is a text node
 * or a property, so a server string holding `<script>` stays text.
 *
 * @module
 */
import { h, render, Fragment } from '../vendor/preact.mjs';
import htm from '../vendor/htm.mjs';

export { useState, useEffect, useMemo, useRef, useCallback } from '../vendor/hooks.mjs';
export { h, render, Fragment };

/** Tagged template producing Preact virtual nodes. */
export const html = htm.bind(h);
