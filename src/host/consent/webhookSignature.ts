/**
 * Signatures of consent webhooks, both ways: HMAC-SHA256 with a shared secret over
 * `<timestamp>.<body>`, where the timestamp is Unix seconds sent in `x-switchboard-timestamp`
 * and the signature is `v1=<lowercase hex>` in `x-switchboard-signature`. A message is
 * accepted only when its signature verifies (compared in constant time), its timestamp is
 * within the replay window of now (either side), and the same signature was not accepted
 * before within that window.
 *
 * @see https://www.rfc-editor.org/rfc/rfc2104
 * @module
 */
import { timingSafeEqual } from '../../auth/http.js';

/** The header with the Unix time (seconds) of a signed message. */
export const TIMESTAMP_HEADER = 'x-switchboard-timestamp';
/** The header with `v1=<hex HMAC-SHA256>`. */
export const SIGNATURE_HEADER = 'x-switchboard-signature';
/** Default replay window: five minutes. */
export const DEFAULT_REPLAY_WINDOW_MS = 300_000;

const encoder = new TextEncoder();

/** Signs and verifies webhook messages with one secret. */
export class WebhookSigner {
  readonly #key: Promise<CryptoKey>;
  readonly #windowMs: number;
  readonly #now: () => number;
  /** Accepted signatures → when they leave the window (ms). */
  readonly #seen = new Map<string, number>();

  constructor(secret: string, options: { readonly replayWindowMs?: number; readonly now?: () => number } = {}) {
    if (secret.length < 16) throw new TypeError('a webhook secret needs at least 16 characters');
    this.#key = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    this.#windowMs = options.replayWindowMs ?? DEFAULT_REPLAY_WINDOW_MS;
    this.#now = options.now ?? Date.now;
  }

  /** The two headers for `body`, signed now. */
  async sign(body: string): Promise<Record<string, string>> {
    const timestamp = String(Math.floor(this.#now() / 1000));
    return { [TIMESTAMP_HEADER]: timestamp, [SIGNATURE_HEADER]: `v1=${await this.#mac(timestamp, body)}` };
  }

  /**
   * Checks a received message; resolves with undefined when it is good, or with why it is
   * not (`bad signature`, `stale or replayed`, ...). A good one is remembered, so the same
   * message is refused as a replay afterwards.
   */
  async verify(body: string, timestamp: string | undefined, signature: string | undefined): Promise<string | undefined> {
    if (timestamp === undefined || signature === undefined) return `missing ${TIMESTAMP_HEADER} or ${SIGNATURE_HEADER}`;
    if (!/^\d{1,12}$/.test(timestamp)) return `malformed ${TIMESTAMP_HEADER}`;
    const expected = `v1=${await this.#mac(timestamp, body)}`;
    if (!timingSafeEqual(signature.trim(), expected)) return 'bad signature';
    const now = this.#now();
    if (Math.abs(now - Number(timestamp) * 1000) > this.#windowMs) return `stale or replayed (timestamp outside the ${Math.round(this.#windowMs / 1000)} s window)`;
    for (const [seen, until] of this.#seen) if (until < now) this.#seen.delete(seen);
    if (this.#seen.has(expected)) return 'replayed (this signed message was already used)';
    this.#seen.set(expected, Number(timestamp) * 1000 + this.#windowMs);
    return undefined;
  }

  async #mac(timestamp: string, body: string): Promise<string> {
    const mac = new Uint8Array(await crypto.subtle.sign('HMAC', await this.#key, encoder.encode(`${timestamp}.${body}`)));
    let hex = '';
    for (const b of mac) hex += b.toString(16).padStart(2, '0');
    return hex;
  }
}
