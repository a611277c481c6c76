/**
 * The `Mcp-Name` header's source in a request body, one mapping for the HTTP server (which
 * checks the header against the body) and the HTTP client (which sets it).
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http
 * @module
 */
/**
 * Where `Mcp-Name` comes from for a method: `params.name` (`tools/call`, `prompts/get`),
 * `params.uri` (`resources/read`), `params.taskId` (the tasks extension's `tasks/get`,
 * `tasks/update`, `tasks/cancel`); undefined when the method has no `Mcp-Name` — including the
 * removed `tasks/result` and `tasks/list`, which must reach the dispatcher for their -32601.
 */
export function mcpNameSource(method: string): 'name' | 'uri' | 'taskId' | undefined {
  switch (method) {
    case 'tools/call':
    case 'prompts/get':
      return 'name';
    case 'resources/read':
      return 'uri';
    case 'tasks/get':
    case 'tasks/update':
    case 'tasks/cancel':
      return 'taskId';
    default:
      return undefined;
  }
}
