/**
 * Consent through MCP elicitation: the gateway asks the upstream client (a form with one
 * yes/no field). The upstream client is the agent's own, so such an answer is recorded as
 * `mediated: 'client'`, approves only the one call (the interceptor never widens it), and is
 * used only when the config lists `elicitation` among the providers. A decline or cancel is
 * a denial.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation
 * @module
 */
import { describeConsentRequest } from './consentText.js';
import { ONCE, type ConsentAnswer, type ConsentEnvironment, type ConsentProvider, type ConsentRequest } from './consentTypes.js';

/** The elicitation provider (`elicitation`). */
export function elicitationProvider(): ConsentProvider {
  return {
    name: 'elicitation',
    available: (_request, env) => env.elicit !== undefined,
    async ask(request: ConsentRequest, env: ConsentEnvironment): Promise<ConsentAnswer> {
      if (env.elicit === undefined) throw new Error('the upstream client cannot be asked (it did not declare elicitation)');
      const approver = `client:${request.principal ?? 'anonymous'}`;
      const result = await env.elicit({
        mode: 'form',
        message: `${describeConsentRequest(request)}\n\nAllow this one call?`,
        requestedSchema: {
          type: 'object',
          properties: { approve: { type: 'boolean', title: 'Allow this call', description: 'Allows only this call, with exactly these arguments.' } },
          required: ['approve'],
        },
      });
      if (result.action === 'accept' && result.content?.['approve'] === true) return { approved: true, scope: ONCE, approver, mediated: 'client' };
      const reason = result.action === 'accept' ? 'not approved in the client' : result.action === 'decline' ? 'declined in the client' : 'cancelled in the client';
      return { approved: false, reason, approver, mediated: 'client' };
    },
  };
}
