/**
 * The wire shared by every benchmark process: the exact bytes of the requests the load
 * generators send, and the checks applied to the answers. Keeping them in one module means
 * every target is driven with identical traffic.
 *
 * @module
 */

/** The revision of the stateless (per-request `_meta`) wire. */
export const MODERN = '2026-07-28';
/** The revision of the session (initialize handshake) wire. */
export const LEGACY = '2025-11-25';
/** The message the echo tool is called with. */
export const MESSAGE = 'hello';

const modernMeta = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };

/** A `tools/call echo` request; `modern` adds the 2026-07-28 `_meta` envelope. */
export function echoCall(id: number, modern: boolean): string {
  const params: Record<string, unknown> = { name: 'echo', arguments: { message: MESSAGE } };
  if (modern) params['_meta'] = modernMeta;
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params });
}

/** A `tools/list` request; `modern` adds the 2026-07-28 `_meta` envelope. */
export function listCall(id: number, modern: boolean): string {
  const params: Record<string, unknown> = modern ? { _meta: modernMeta } : {};
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params });
}

/** The 2025-11-25 `initialize` request. */
export function initializeCall(id: number): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'switchboard-bench', version: '0.0.0' } },
  });
}

/** The `notifications/initialized` notification that completes the handshake. */
export const INITIALIZED = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });

/** HTTP headers of a request on the given wire. */
export function httpHeaders(method: string, modern: boolean, session?: string): Record<string, string> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
  };
  if (modern) {
    headers['MCP-Protocol-Version'] = MODERN;
    headers['Mcp-Method'] = method;
    if (method === 'tools/call') headers['Mcp-Name'] = 'echo';
  } else if (method !== 'initialize') {
    headers['MCP-Protocol-Version'] = LEGACY;
  }
  if (session !== undefined) headers['Mcp-Session-Id'] = session;
  return headers;
}

/**
 * Extracts the JSON-RPC message from a response body: the body itself for JSON, the `data:`
 * of the event carrying a response for SSE. Returns undefined when none is found.
 */
export function jsonRpcOf(body: string): Record<string, unknown> | undefined {
  const text = body.trimStart();
  if (text.startsWith('{')) return JSON.parse(text) as Record<string, unknown>;
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trimStart())
      .join('\n');
    if (data === '') continue;
    const message = JSON.parse(data) as Record<string, unknown>;
    if ('result' in message || 'error' in message) return message;
  }
  return undefined;
}

/** Throws unless `message` is the successful echo answer to request `id`. */
export function assertEcho(message: Record<string, unknown> | undefined, id: number): void {
  const result = message?.['result'] as { content?: { type?: string; text?: string }[] } | undefined;
  const first = result?.content?.[0];
  if (message?.['id'] !== id || first?.type !== 'text' || first.text !== MESSAGE) {
    throw new Error(`not an echo answer to ${id}: ${JSON.stringify(message).slice(0, 300)}`);
  }
}

/** Throws unless `message` answers request `id` with at least `count` tools. */
export function assertList(message: Record<string, unknown> | undefined, id: number, count: number): void {
  const tools = (message?.['result'] as { tools?: unknown[] } | undefined)?.tools;
  if (message?.['id'] !== id || !Array.isArray(tools) || tools.length < count) {
    throw new Error(`not a tools/list answer with ${count} tools to ${id}: ${JSON.stringify(message).slice(0, 300)}`);
  }
}

/** Cheap check used while timing: the raw answer mentions the echoed message. */
export function looksLikeEcho(body: string): boolean {
  return body.includes('"text":"hello"');
}
