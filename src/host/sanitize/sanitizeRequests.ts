/**
 * The text a downstream server wants to put in front of the model or the person: the
 * `trust`-phase interceptor `trust.sanitize-request` over `server/request` (a server's
 * `sampling/createMessage` and `elicitation/create`). It runs before policy and consent, so
 *
 * - the person asked to approve such a request sees the text with hidden Unicode and ANSI
 *   escapes removed (mode `strip`), and the upstream client gets that text too;
 * - prompt-injection markers in it are recorded (`detail.injection: true`): the policy engine
 *   then asks before the request goes on (`builtin.server-request`), and the session is tainted
 *   with untrusted content, as a result with markers would taint it.
 *
 * What is sanitised: an elicitation's `message` and the titles and descriptions of its schema,
 * a sampling request's `messages` and `systemPrompt` (see `mapServerRequestText`).
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/client/sampling#security-considerations
 * @see https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#security-considerations
 * @module
 */
import type { Interceptor } from '../interceptors.js';
import { mapServerRequestText } from './resultText.js';
import { sanitizeValue, type SanitizeOptions } from './sanitize.js';

/** The id the request sanitiser records under. */
export const SANITIZE_REQUEST_INTERCEPTOR_ID = 'trust.sanitize-request';

/** The server methods whose text reaches the model or a person. */
const TEXT_METHODS: ReadonlySet<string> = new Set(['sampling/createMessage', 'elicitation/create']);

/** The `trust.sanitize-request` interceptor (see the module comment); `redactSecrets` does not apply to requests. */
export function sanitizeRequestInterceptor(options: SanitizeOptions = {}): Interceptor {
  const settings: SanitizeOptions = { mode: options.mode ?? 'strip' };
  return {
    id: SANITIZE_REQUEST_INTERCEPTOR_ID,
    phase: 'trust',
    methods: ['server/request'],
    intercept(ctx, next) {
      if (settings.mode === 'off' || !TEXT_METHODS.has(ctx.serverMethod ?? '')) return next();
      const report = sanitizeValue(ctx.params, settings, mapServerRequestText);
      const changed = report.result !== ctx.params;
      if (changed) ctx.params = report.result as Record<string, unknown>;
      const stripped = Object.keys(report.stripped).length > 0 ? { stripped: report.stripped } : {};
      if (report.markers.length > 0) {
        ctx.record({
          interceptor: SANITIZE_REQUEST_INTERCEPTOR_ID,
          outcome: changed ? 'change' : 'observe',
          reason: `the server's ${ctx.serverMethod ?? 'request'} carries prompt-injection markers (${report.markers.join(', ')})`,
          detail: { injection: true, markers: report.markers, ...stripped },
        });
      } else if (changed || 'stripped' in stripped) {
        ctx.record({ interceptor: SANITIZE_REQUEST_INTERCEPTOR_ID, outcome: changed ? 'change' : 'observe', reason: `hidden characters in the server's ${ctx.serverMethod ?? 'request'}`, detail: stripped });
      }
      return next();
    },
  };
}
