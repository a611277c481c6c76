/**
 * The gateway's setup notice: while some configured servers cannot start because a person has
 * not approved their launch yet, the gateway serves one tool of its own,
 * `switchboard_setup_required`, whose description and call result say which servers wait and
 * how to approve them (the console's URL, the command).
 *
 * Why a tool: an MCP client such as Claude Desktop shows a server's tools in its UI and lets the
 * model call them, but shows neither the server's `instructions` nor its log messages, and a
 * failed `initialize` only marks the server as failed with a pointer to a log file. An empty
 * tools list says nothing at all. A tool is visible in the client's tool list, and the model
 * that calls it reads the steps and can tell the user.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/tools#listing-tools
 * @module
 */
import type { Tool } from '../protocol/model/tool.js';
import type { CallToolResult } from '../protocol/model/tools.js';

/** The notice tool's name. */
export const SETUP_TOOL = 'switchboard_setup_required';

/** The notice's tool definition for `text` (the steps to take). */
export function setupNoticeTool(text: string): Tool {
  return {
    name: SETUP_TOOL,
    title: 'Switchboard: setup required',
    description: `Switchboard (the MCP security gateway) has servers it could not start. ${text} Call this tool to show these steps to the user.`,
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  } as Tool;
}

/** What calling the notice tool answers: the steps, as text. */
export function setupNoticeResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text: `Switchboard setup required. ${text}` }] };
}

/** The steps for servers `waiting` on launch approval: where to approve (console URL, if any) and the command. */
export function launchApprovalSteps(waiting: readonly string[], where: { readonly consoleUrl?: string | undefined; readonly command: string }): string {
  const servers = waiting.map((id) => JSON.stringify(id)).join(', ');
  const console_ = where.consoleUrl === undefined ? '' : ` or approve them on the Review page of the Switchboard console at ${where.consoleUrl} (sign in with the admin token in the state folder's admin-token file)`;
  return `The launch of ${waiting.length === 1 ? 'server' : 'servers'} ${servers} has not been approved yet, so ${waiting.length === 1 ? 'it does' : 'they do'} not run and ${waiting.length === 1 ? 'its' : 'their'} tools are missing. To approve: in a terminal, run ${where.command}${console_}. Approved servers start at once; then restart the client if their tools do not appear.`;
}
