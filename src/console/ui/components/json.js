// @ts-check
/**
 * A JSON value shown pretty-printed as text in a `<pre>`, hidden characters made visible.
 *
 * @module
 */
import { html } from '../lib/html.js';
import { Reveal } from './text.js';

/** `value` as indented JSON (`undefined` as an empty string). */
export function prettyJson(/** @type {unknown} */ value) {
  if (value === undefined) return '';
  try {
    return JSON.stringify(value, null, 2) ?? '';
  } catch {
    return String(value);
  }
}

/**
 * @param {{ value: unknown, label?: string }} props
 */
export function JsonView({ value, label }) {
  return html`<pre class="json" tabindex="0" aria-label=${label ?? 'JSON value'}><code><${Reveal} text=${prettyJson(value)} /></code></pre>`;
}
