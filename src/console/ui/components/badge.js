// @ts-check
/**
 * Status badges: a word with a colour class, never colour alone (the word carries the meaning).
 *
 * @module
 */
import { html } from '../lib/html.js';

/** Words shown as good, bad or in between. */
const TONE = {
  good: ['ok', 'up', 'healthy', 'ready', 'allow', 'allowed', 'approved', 'trusted', 'trusted-publisher', 'pinned-key', 'valid', 'connected'],
  bad: ['down', 'error', 'failed', 'deny', 'denied', 'rejected', 'broken', 'quarantined', 'high', 'critical', 'invalid', 'closed'],
  warn: ['degraded', 'starting', 'ask', 'pending', 'medium', 'first-use', 'warning', 'restarting', 'changed'],
};

/**
 * @param {{ value: unknown, label?: string }} props
 */
export function Badge({ value, label }) {
  const word = value === undefined || value === null ? 'unknown' : String(value);
  const key = word.toLowerCase();
  const tone = TONE.good.includes(key) ? 'good' : TONE.bad.includes(key) ? 'bad' : TONE.warn.includes(key) ? 'warn' : 'neutral';
  return html`<span class=${`badge badge-${tone}`} title=${label}>${word}</span>`;
}
