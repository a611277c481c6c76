/**
 * The text a person reads before answering: server, identity, tool, every reason and the
 * full arguments, as indented JSON with everything outside printable ASCII escaped, so
 * control characters, ANSI sequences and bidirectional overrides cannot disguise a call.
 *
 * @module
 */
import type { ConsentRequest } from './consentTypes.js';

/** `value` as indented JSON, with every character outside printable ASCII written as `\uXXXX`. */
export function safeJson(value: unknown): string {
  const text = JSON.stringify(value, null, 2) ?? 'undefined';
  return text.replace(/[^\x20-\x7e\n]/gu, (ch) => {
    const code = ch.codePointAt(0) as number;
    return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** A multi-line description of `request` for a prompt (terminal, elicitation, webhook text). */
export function describeConsentRequest(request: ConsentRequest): string {
  const what = request.method === 'server/request' ? `server ${request.server.id} asks: ${request.serverMethod ?? request.tool}` : `${request.method} ${request.tool}`;
  const lines = [
    `Consent request ${request.id}`,
    `  ${safeJson(what).slice(1, -1)}`,
    `  server: ${safeJson(request.server.id)} (${safeJson(request.server.identity)}${request.server.name !== undefined ? `, calls itself ${safeJson(request.server.name)}` : ''})`,
  ];
  if (request.exposedName !== undefined && request.exposedName !== request.tool) lines.push(`  the agent called it: ${safeJson(request.exposedName)}`);
  if (request.principal !== undefined) lines.push(`  proposed by: ${safeJson(request.principal)}${request.session !== undefined ? ` (session ${request.session})` : ''}`);
  lines.push('  reasons:');
  for (const reason of request.reasons) lines.push(`    - ${safeJson(reason).slice(1, -1)}`);
  lines.push(`  ${request.method === 'server/request' ? 'what the server sent' : 'arguments'} (in full):`);
  for (const line of safeJson(request.arguments).split('\n')) lines.push(`    ${line}`);
  lines.push(`  definition: ${request.binding.definitionDigest}, arguments: ${request.binding.argumentsDigest}`);
  lines.push(`  waits until ${request.expiresAt}`);
  return lines.join('\n');
}
