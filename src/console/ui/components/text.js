// @ts-check
/**
 * Text display: {@link Reveal} renders a server-provided string as text with every hidden
 * character shown as a visible marker; {@link Notice} shows an error or a status line.
 *
 * @module
 */
import { html } from '../lib/html.js';
import { codePointLabel, splitHidden } from '../lib/unicode.js';

/**
 * A string rendered as text nodes; hidden characters become `⟦U+XXXX⟧` markers (a `<mark>`
 * with the code point as its accessible name).
 * @param {{ text: unknown }} props
 */
export function Reveal({ text }) {
  const value = typeof text === 'string' ? text : text === undefined || text === null ? '' : String(text);
  return html`${splitHidden(value).map((p) =>
    p.hidden ? html`<mark class="hidden-char" title=${`hidden character ${codePointLabel(p.text)}`}>⟦${codePointLabel(p.text)}⟧</mark>` : p.text,
  )}`;
}

/**
 * A message line: `error` is announced as an alert, `info` politely.
 * @param {{ kind?: 'error' | 'warn' | 'info' | 'ok', children?: unknown }} props
 */
export function Notice({ kind = 'info', children }) {
  return html`<p class=${`notice notice-${kind}`} role=${kind === 'error' ? 'alert' : 'status'}>${children}</p>`;
}

/** The message of an unknown thrown value. */
export function errorText(/** @type {unknown} */ error) {
  return error instanceof Error ? error.message : String(error);
}

/** An ISO time as a short local date-time (the ISO string itself when unparsable). */
export function formatTime(/** @type {string | number | undefined} */ value) {
  if (value === undefined) return '';
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? String(value) : d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}
