/**
 * The plain tools of the `everything` server: content of every type, logging, progress,
 * execution errors, the JSON Schema 2020-12 and `x-mcp-header` tools, and the triggers that
 * change the tool and prompt lists (so `subscriptions/listen` streams see `list_changed`).
 *
 * None of these asks the client anything; see `inputTools.ts` and `mrtrTools.ts` for those.
 *
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { McpServer } from '../../server/mcpServer.js';
import { ToolError } from '../../server/tools.js';
import type { HandlerContext, RegisteredHandle } from '../../server/types.js';
import { JSON_SCHEMA_2020_12_INPUT, PNG_BASE64, WAV_BASE64, text } from './fixtures.js';

/** The `logger` name on the server's log notifications. */
export const EVERYTHING_LOGGER = 'switchboard-everything';

/** The tool that `test_trigger_tool_change` adds and removes. */
export const DYNAMIC_TOOL = 'test_dynamic_tool';

/** The text `test_error_handling` fails with. */
export const ERROR_TEXT = 'This tool intentionally returns an error for testing';

/** What the list triggers need: a way to add and remove the dynamic prompt. */
export interface ToolDeps {
  /** Adds the dynamic prompt when absent, removes it when present; returns whether it is now present. */
  readonly togglePrompt: () => boolean;
}

/** Waits `ms`, ending early (without throwing) when the request is cancelled. */
async function pause(ms: number, context: HandlerContext): Promise<void> {
  await sleep(ms, undefined, { signal: context.signal }).catch(() => undefined);
}

const NO_ARGS = { type: 'object', properties: {} } as const;

/** Registers the content tools: text, image, audio, embedded resource, mixed, echo. */
function registerContentTools(server: McpServer): void {
  server.tool(
    'echo',
    {
      title: 'Echo',
      description: 'Returns the message it is given, as one text block',
      inputSchema: { type: 'object', properties: { message: { type: 'string', description: 'The text to echo' } }, required: ['message'] },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    (args) => String(args['message']),
  );
  server.tool('test_simple_text', { description: 'Tests simple text content response', inputSchema: NO_ARGS }, () =>
    'This is a simple text response for testing.',
  );
  server.tool('test_image_content', { description: 'Tests image content response', inputSchema: NO_ARGS }, () => ({
    content: [{ type: 'image', data: PNG_BASE64, mimeType: 'image/png' }],
  }));
  server.tool('test_audio_content', { description: 'Tests audio content response', inputSchema: NO_ARGS }, () => ({
    content: [{ type: 'audio', data: WAV_BASE64, mimeType: 'audio/wav' }],
  }));
  server.tool('test_embedded_resource', { description: 'Tests embedded resource content response', inputSchema: NO_ARGS }, () => ({
    content: [
      { type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } },
    ],
  }));
  server.tool(
    'test_multiple_content_types',
    { description: 'Tests response with multiple content types (text, image, resource)', inputSchema: NO_ARGS },
    () => ({
      content: [
        text('Multiple content types test:'),
        { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) },
        },
      ],
    }),
  );
}

/** Registers the tools that report while running: logging, progress, reconnection, errors. */
function registerReportingTools(server: McpServer): void {
  server.tool(
    'test_tool_with_logging',
    { description: 'Tests tool that emits log messages during execution', inputSchema: NO_ARGS },
    async (_args, context) => {
      await context.log('info', 'Tool execution started', EVERYTHING_LOGGER);
      await pause(50, context);
      await context.log('info', 'Tool processing data', EVERYTHING_LOGGER);
      await pause(50, context);
      await context.log('info', 'Tool execution completed', EVERYTHING_LOGGER);
      return 'Tool with logging executed successfully';
    },
  );
  server.tool(
    'test_logging_tool',
    { description: 'Logs one info message, only when the request asked for logs (_meta log level)', inputSchema: NO_ARGS },
    async (_args, context) => {
      await context.log('info', 'Diagnostic trace logging activated', EVERYTHING_LOGGER);
      return 'Logging evaluated';
    },
  );
  server.tool(
    'test_tool_with_progress',
    { description: 'Tests tool that reports progress notifications (0, 50, 100 of 100)', inputSchema: NO_ARGS },
    async (_args, context) => {
      for (const step of [0, 50, 100]) {
        if (step > 0) await pause(50, context);
        await context.progress(step, 100, `Completed step ${step} of 100`);
      }
      const token = context.meta['progressToken'];
      return typeof token === 'string' || typeof token === 'number' ? String(token) : 'no progress token';
    },
  );
  server.tool('test_error_handling', { description: 'Tests error response handling', inputSchema: NO_ARGS }, () => {
    throw new ToolError(ERROR_TEXT);
  });
  server.tool(
    'test_reconnection',
    {
      description: 'Tests SSE stream disconnection and client reconnection (SEP-1699): answers after a short pause',
      inputSchema: NO_ARGS,
    },
    async (_args, context) => {
      // On a 2025-11-25 HTTP session, end the response stream now: the client must wait the
      // retry delay and resume with GET + Last-Event-ID to get this result.
      context.closeStream();
      await pause(100, context);
      return 'Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.';
    },
  );
}

/** Registers the schema showcase tools: JSON Schema 2020-12 and `x-mcp-header`. */
function registerSchemaTools(server: McpServer): void {
  server.tool(
    'json_schema_2020_12_tool',
    { description: 'Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613, SEP-2106)', inputSchema: JSON_SCHEMA_2020_12_INPUT },
    (args) => `JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`,
  );
  server.tool(
    'test_x_mcp_header',
    {
      description: 'Mirrors its region argument into the Mcp-Param-Region header (SEP-2243)',
      inputSchema: {
        type: 'object',
        properties: {
          region: { type: 'string', description: 'Deployment region (sent as Mcp-Param-Region)', 'x-mcp-header': 'Region' },
          note: { type: 'string', description: 'Free text, body only' },
        },
        required: ['region'],
      },
    },
    (args) => {
      const note = args['note'];
      return `Region: ${String(args['region'])}${typeof note === 'string' ? `; note: ${note}` : ''}`;
    },
  );
}

/** Registers the list-change triggers; returns nothing, the dynamic tool is managed here. */
function registerTriggers(server: McpServer, deps: ToolDeps): void {
  let dynamic: RegisteredHandle | undefined;
  const toggleTool = (): boolean => {
    if (dynamic !== undefined) {
      dynamic.remove();
      dynamic = undefined;
      return false;
    }
    dynamic = server.tool(DYNAMIC_TOOL, { description: 'Appears and disappears with test_trigger_tool_change', inputSchema: NO_ARGS }, () =>
      'Dynamic tool called',
    );
    return true;
  };
  server.tool(
    'test_trigger_tool_change',
    { description: `Adds or removes ${DYNAMIC_TOOL}, so listeners get notifications/tools/list_changed`, inputSchema: NO_ARGS },
    () => `Mutation triggered: ${DYNAMIC_TOOL} ${toggleTool() ? 'added' : 'removed'}`,
  );
  server.tool(
    'test_trigger_prompt_change',
    { description: 'Adds or removes test_dynamic_prompt, so listeners get notifications/prompts/list_changed', inputSchema: NO_ARGS },
    () => `Mutation triggered: test_dynamic_prompt ${deps.togglePrompt() ? 'added' : 'removed'}`,
  );
}

/** Registers every tool that does not ask the client for input. */
export function registerTools(server: McpServer, deps: ToolDeps): void {
  registerContentTools(server);
  registerReportingTools(server);
  registerSchemaTools(server);
  registerTriggers(server, deps);
}
