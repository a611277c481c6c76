/**
 * How a client command answers what the server asks and shows what it reports while a call
 * runs:
 *
 * - progress and log messages go to stderr (one line each) unless `--quiet`;
 * - a form-mode elicitation is answered at the prompt when stdin and stderr are a terminal
 *   (the form is loaded only then), and declined with a message otherwise; a URL-mode one
 *   shows the URL and waits for the user to confirm;
 * - sampling runs `--sampling-command` (the request params as JSON on its stdin, a
 *   `CreateMessageResult` as JSON on its stdout) or is refused with a message saying so.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation
 * @see https://modelcontextprotocol.io/specification/2025-11-25/client/sampling
 * @module
 */
import { spawn } from 'node:child_process';
import type { ClientEvents, ClientHandlers } from '../client/types.js';
import type { Progress } from '../jsonrpc/connection.js';
import type { ElicitParams, ElicitResult } from '../protocol/model/elicitation.js';
import type { CreateMessageParams, CreateMessageResult } from '../protocol/model/sampling.js';
import type { LoggingMessageParams } from '../protocol/model/utilities.js';
import type { Logger } from '../util/logger.js';
import type { ParsedArgs } from './args.js';
import { splitCommandLine } from './clientConnect.js';

/** Where the handlers write and read; the process's streams by default. */
export interface HandlerIo {
  readonly write: (text: string) => void;
  readonly interactive: boolean;
}

const processIo = (): HandlerIo => ({
  write: (text) => process.stderr.write(text),
  interactive: process.stdin.isTTY === true && process.stderr.isTTY === true,
});

/** One stderr line for a progress report: `progress 3/10 (30%) message`. */
export function formatProgress(progress: Progress): string {
  const total = progress.total === undefined ? '' : `/${progress.total}`;
  const percent = progress.total !== undefined && progress.total > 0 ? ` (${Math.round((progress.progress / progress.total) * 100)}%)` : '';
  return `progress ${progress.progress}${total}${percent}${progress.message === undefined ? '' : ` ${progress.message}`}\n`;
}

/** One stderr line for a server log message: `[server warning logger] data`. */
export function formatLogMessage(params: LoggingMessageParams): string {
  const data = typeof params.data === 'string' ? params.data : JSON.stringify(params.data);
  return `[server ${params.level}${params.logger === undefined ? '' : ` ${params.logger}`}] ${data}\n`;
}

/** The progress callback of a call (undefined with `--quiet`). */
export function progressPrinter(options: ParsedArgs['options'], io: HandlerIo = processIo()): ((progress: Progress) => void) | undefined {
  return options['quiet'] === true ? undefined : (progress) => io.write(formatProgress(progress));
}

/** The event hooks of a client command: server log messages and unsolicited progress on stderr. */
export function clientEvents(options: ParsedArgs['options'], io: HandlerIo = processIo()): ClientEvents {
  if (options['quiet'] === true) return {};
  return {
    logMessage: (params) => io.write(formatLogMessage(params)),
    progress: (params) => io.write(formatProgress(params)),
  };
}

/** Answers an elicitation at the terminal, or declines it when there is none. */
async function elicit(params: ElicitParams, io: HandlerIo): Promise<ElicitResult> {
  if (!io.interactive) {
    io.write(`switchboard: the server asked for input (${JSON.stringify(params.message)}); declined: stdin is not a terminal (run it in a terminal to answer)\n`);
    return { action: 'decline' };
  }
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  let closed = false;
  rl.once('close', () => (closed = true));
  const ask = async (question: string): Promise<string | undefined> => {
    if (closed) return undefined;
    // End of input (Ctrl-D) closes the interface; the pending question then never settles.
    return Promise.race([rl.question(question), new Promise<undefined>((resolve) => rl.once('close', () => resolve(undefined)))]);
  };
  try {
    if (params.mode === 'url') {
      io.write(`\nThe server asks you to open a URL: ${params.message}\n  ${params.url}\n`);
      const answer = await ask('Press Enter once done, or type n to decline: ');
      return answer === undefined ? { action: 'cancel' } : /^n(o)?$/i.test(answer.trim()) ? { action: 'decline' } : { action: 'accept' };
    }
    const { runElicitationForm } = await import('./elicitationForm.js');
    return await runElicitationForm(params, ask, io.write);
  } finally {
    rl.close();
  }
}

/** Runs the sampling command: params in on stdin, a CreateMessageResult out on stdout. */
export function runSamplingCommand(commandLine: string, params: CreateMessageParams): Promise<CreateMessageResult> {
  const [command, ...args] = splitCommandLine(commandLine);
  if (command === undefined) return Promise.reject(new Error('--sampling-command is empty'));
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('error', (error) => reject(new Error(`--sampling-command could not start: ${error.message}`, { cause: error })));
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`--sampling-command exited with ${String(code)}`));
      let result: unknown;
      try {
        result = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch (error) {
        return reject(new Error('--sampling-command did not print JSON', { cause: error }));
      }
      const r = result as Record<string, unknown> | null;
      if (typeof r !== 'object' || r === null || typeof r['model'] !== 'string' || (r['role'] !== 'assistant' && r['role'] !== 'user') || typeof r['content'] !== 'object') {
        return reject(new Error('--sampling-command must print a CreateMessageResult: {"role":"assistant","content":{...},"model":"..."}'));
      }
      resolve(result as CreateMessageResult);
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(JSON.stringify(params));
  });
}

/** Why a sampling request is refused without `--sampling-command`, and how to enable it. */
export const SAMPLING_REFUSED =
  'the server asked for a model completion (sampling); refused: no --sampling-command is configured (add --sampling-command "<cmd>": it gets the request JSON on stdin and prints a CreateMessageResult JSON)';

/**
 * Wraps the command's logger so that a failed answer to a server's request (logged by the
 * client as `a client handler failed`) reads as one plain line instead of a JSON log entry.
 */
export function handlerFailureLogger(logger: Logger, io: HandlerIo = processIo()): Logger {
  return {
    ...logger,
    warn: (message, fields) => {
      if (message === 'a client handler failed' && typeof fields?.['error'] === 'string') io.write(`switchboard: answering ${String(fields['method'])} failed: ${fields['error']}\n`);
      else logger.warn(message, fields);
    },
  };
}

/** The handlers of a client command. */
export function clientHandlers(options: ParsedArgs['options']): ClientHandlers {
  const command = options['sampling-command'];
  return {
    elicitation: (params) => elicit(params, processIo()),
    // Refused: on 2026-07-28 the failure ends the call and is printed then; a legacy
    // request's failure is reported by the client's logger (see handlerFailureLogger).
    sampling: (params) => (typeof command === 'string' ? runSamplingCommand(command, params) : Promise.reject(new Error(SAMPLING_REFUSED))),
  };
}
