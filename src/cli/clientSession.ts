/**
 * The life of one client command: read the common options, connect (with the handlers that
 * answer elicitation and sampling and the hooks that show progress and log messages), run
 * the command's body, close, and turn a failure into one sentence with a hint
 * (`clientErrors.ts`).
 *
 * @module
 */
import type { McpClient } from '../client/mcpClient.js';
import type { ClientHandlers } from '../client/types.js';
import type { Progress } from '../jsonrpc/connection.js';
import type { ParsedCommand } from './command.js';
import { commandLogger, connectClient, parseClientArgs, type ClientArgs } from './clientConnect.js';
import { explainFailure } from './clientErrors.js';
import { clientEvents, clientHandlers, handlerFailureLogger, progressPrinter } from './clientHandlers.js';

/** What a command body gets. */
export interface ClientSession {
  readonly client: McpClient;
  readonly args: ClientArgs;
  /** Pass as a call's `onProgress` (undefined with `--quiet`). */
  readonly onProgress: ((progress: Progress) => void) | undefined;
  /** The handlers the client answers the server's questions with (a task's input requests go to them too). */
  readonly handlers: ClientHandlers;
}

/**
 * Reads the client arguments of `parsed`, lets `check` validate the positionals before
 * anything connects, then connects and runs `body`; resolves with its exit code.
 */
export async function runClientCommand<T>(
  parsed: ParsedCommand,
  check: (args: ClientArgs) => T,
  body: (session: ClientSession, checked: T) => Promise<number>,
): Promise<number> {
  const args = parseClientArgs(parsed);
  const checked = check(args);
  const logger = handlerFailureLogger(commandLogger(args.options));
  const context = { options: args.options, ...(args.target.kind === 'http' ? { url: args.target.url } : { command: args.target.command }) };
  let client: McpClient;
  const handlers = clientHandlers(args.options);
  try {
    client = await connectClient(args, logger, { handlers, on: clientEvents(args.options) });
  } catch (error) {
    throw explainFailure(error, context);
  }
  // Ask for the server's log messages from info up, to show them while calls run.
  try {
    if (args.options['quiet'] !== true && client.serverCapabilities?.['logging'] !== undefined) await client.setLoggingLevel('info');
  } catch (error) {
    await client.close().catch(() => undefined);
    throw explainFailure(error, context);
  }
  try {
    return await body({ client, args, onProgress: progressPrinter(args.options), handlers }, checked);
  } catch (error) {
    throw explainFailure(error, context);
  } finally {
    await client.close().catch(() => undefined);
  }
}
