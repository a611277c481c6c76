/**
 * The floor: the least work that still answers MCP traffic correctly — parse the JSON-RPC
 * message, answer `tools/call echo` with the message as one text block, and answer the few
 * other methods a client needs (`initialize`, `server/discover`, `tools/list`). No
 * validation, no schema, no middleware. Shared by the HTTP and the stdio floors.
 *
 * @module
 */
import { MODERN, LEGACY } from '../lib/wire.js';
import { EXTRA_DESCRIPTION, extraToolNames } from './common.js';

const schema = { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] };

/** Builds the answer function of a floor serving `tools` tools. */
export function floorAnswerer(tools: number): (message: Record<string, unknown>) => Record<string, unknown> | undefined {
  const list = [
    { name: 'echo', description: 'Echoes the message back.', inputSchema: schema },
    ...extraToolNames(tools).map((name) => ({ name, description: EXTRA_DESCRIPTION, inputSchema: schema })),
  ];
  const info = { name: 'floor', version: '0.0.0' };
  return (message) => {
    if (!('id' in message)) return undefined;
    const params = (message['params'] ?? {}) as Record<string, unknown>;
    let result: unknown;
    switch (message['method']) {
      case 'tools/call': {
        const args = (params['arguments'] ?? {}) as { message?: unknown };
        result = { content: [{ type: 'text', text: args.message }] };
        // The 2026-07-28 result shape carries resultType, as the real servers' answers do.
        if (params['_meta'] !== undefined) (result as Record<string, unknown>)['resultType'] = 'complete';
        break;
      }
      case 'tools/list':
        result = { tools: list };
        break;
      case 'initialize':
        result = { protocolVersion: params['protocolVersion'] ?? LEGACY, capabilities: { tools: {} }, serverInfo: info };
        break;
      case 'server/discover':
        result = { supportedVersions: [MODERN], capabilities: { tools: {} }, serverInfo: info };
        break;
      default:
        result = {};
    }
    return { jsonrpc: '2.0', id: message['id'], result };
  };
}
