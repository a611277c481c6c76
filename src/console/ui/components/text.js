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

/**
 * What a revocation answer says about the authorization servers (RFC 7009): `''` when every
 * connection was revoked there too, else a sentence naming each one that was not and why (the
 * connections are removed from the gateway either way).
 * @param {{ serverId?: string, server?: string, principal?: string, asRevoked?: boolean | 'unsupported', reason?: string }[] | undefined} connections
 */
export function asRevokedText(connections) {
  const left = (connections ?? []).filter((c) => c.asRevoked !== true);
  if (left.length === 0) return '';
  const each = left.map((c) => `${c.principal !== undefined ? `${c.principal} @ ` : ''}${c.serverId ?? c.server ?? '?'}: ${c.asRevoked === 'unsupported' ? 'unsupported' : 'failed'}${c.reason !== undefined ? ` (${c.reason})` : ''}`);
  return ` Not revoked at the authorization server: ${each.join('; ')}.`;
}
