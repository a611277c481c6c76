/**
 * Consent out of band through a signed webhook. Each request is POSTed as JSON
 * (`{ "type": "consent.request", "request": ConsentRequest, "text": <what a person reads> }`)
 * to the configured URL, signed (see `webhookSignature.ts`). The receiver answers:
 *
 * - in the response: HTTP 200 with a signed answer (`consentAnswers.ts`) naming the request;
 * - later: HTTP 202 (or a signed `"decision": "pending"`), and then a signed answer POSTed to
 *   the gateway's `/consent/webhook` (or any answer through the admin HTTP API) before the
 *   request times out.
 *
 * A bad or missing signature, a timestamp outside the replay window, a replayed message, an
 * answer for another request, any other status, a network failure, or no response within
 * the webhook's own timeout: the provider fails, and the call is denied.
 *
 * @module
 */
import { describeError } from '../../util/errors.js';
import type { ConsentQueue } from './consentQueue.js';
import { describeConsentRequest } from './consentText.js';
import type { ConsentAnswer, ConsentEnvironment, ConsentProvider, ConsentRequest } from './consentTypes.js';
import { parseWebhookAnswer } from './consentAnswers.js';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, type WebhookSigner } from './webhookSignature.js';

/** Options of {@link webhookProvider}. */
export interface WebhookProviderOptions {
  /** Where requests are POSTed (https, or http on loopback). */
  readonly url: string;
  readonly signer: WebhookSigner;
  /** How long the POST may take. Default 10 s. */
  readonly timeoutMs?: number;
  /** Where a `pending` request waits for its later answer. */
  readonly queue: ConsentQueue;
  /** Default `globalThis.fetch`. */
  readonly fetch?: typeof fetch;
}

/** The webhook provider (`webhook`). */
export function webhookProvider(options: WebhookProviderOptions): ConsentProvider {
  const send = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.timeoutMs ?? 10_000;
  return {
    name: 'webhook',
    available: () => true,
    async ask(request: ConsentRequest, env: ConsentEnvironment): Promise<ConsentAnswer> {
      const body = JSON.stringify({ type: 'consent.request', request, text: describeConsentRequest(request) });
      const headers = { 'content-type': 'application/json', ...(await options.signer.sign(body)) };
      const signal = AbortSignal.any([env.signal, AbortSignal.timeout(timeoutMs)]);
      let response: Response;
      let text: string;
      try {
        response = await send(options.url, { method: 'POST', headers, body, signal, redirect: 'error' });
        text = await response.text();
      } catch (error) {
        if (env.signal.aborted) throw error;
        throw new Error(`the webhook did not answer within ${timeoutMs} ms or could not be reached (${describeError(error)})`);
      }
      if (response.status === 202) return options.queue.ask(request, env);
      if (response.status !== 200) throw new Error(`the webhook answered HTTP ${response.status}`);
      const problem = await options.signer.verify(text, response.headers.get(TIMESTAMP_HEADER) ?? undefined, response.headers.get(SIGNATURE_HEADER) ?? undefined);
      if (problem !== undefined) throw new Error(`the webhook's answer was refused: ${problem}`);
      const answer = parseWebhookAnswer(text, request.id);
      return answer === 'pending' ? options.queue.ask(request, env) : answer;
    },
  };
}
