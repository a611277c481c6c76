/**
 * The terminal consent provider: asks on the gateway's own TTY (never over `--stdio`, where
 * stdin is the protocol), one request at a time. The prompt shows the full request
 * (`describeConsentRequest`: server, identity, tool, reasons, every argument, escaped) and
 * reads one answer:
 *
 * | key | approves |
 * |---|---|
 * | `y` | this call, once |
 * | `s` | this exact call again in this session |
 * | `t` | this tool with any arguments in this session |
 * | anything else, or Enter | nothing: denied |
 *
 * A request answered elsewhere first (the HTTP API, a webhook) cancels its prompt.
 *
 * Every question (this provider's, and the yes/no of launch consent, {@link askYesNo}) first
 * throws away what was typed before it was shown ({@link flushInput}): a stray Enter pressed
 * while nothing was asked would otherwise answer (deny, or approve with a stray `y`) a question
 * the person never saw.
 *
 * @module
 */
import type { Readable, Writable } from 'node:stream';
import { describeConsentRequest } from '../host/consent/consentText.js';
import { describeFindings } from '../host/launchConsent.js';
import type { LaunchFinding } from '../host/launchSupplyChain.js';
import { ONCE, type ConsentAnswer, type ConsentEnvironment, type ConsentProvider, type ConsentRequest, type GrantScope } from '../host/consent/consentTypes.js';

/** Options of {@link terminalConsentProvider}. */
export interface TerminalConsentOptions {
  readonly input: Readable;
  readonly output: Writable;
}

/** The `terminal` provider over `input`/`output` (a TTY). */
export function terminalConsentProvider(options: TerminalConsentOptions): ConsentProvider {
  let line: Promise<unknown> = Promise.resolve();
  return {
    name: 'terminal',
    available: () => true,
    ask(request: ConsentRequest, env: ConsentEnvironment): Promise<ConsentAnswer> {
      const turn = line.then(() => prompt(options, request, env));
      line = turn.catch(() => undefined);
      return turn;
    },
  };
}

/**
 * Throws away input typed before a question is shown: what the stream holds already, and what
 * the terminal delivers as soon as it is read again (bytes waiting in the terminal arrive in
 * the first poll of the event loop after reading resumes; a timer of 0 and an immediate let
 * that poll happen). Leaves the stream paused.
 */
export async function flushInput(input: Readable): Promise<void> {
  const discard = (): void => undefined;
  while (input.readableLength > 0 && input.read() !== null) {
    // Buffered before the question: dropped.
  }
  input.on('data', discard);
  await new Promise((resolve) => setTimeout(resolve, 0));
  await new Promise((resolve) => setImmediate(resolve));
  input.off('data', discard);
  input.pause();
}

/**
 * Asks a yes/no question on `output` (launch consent: `gateway`, `scan`, `wrap`), after
 * {@link flushInput}; only `y` or `yes` approves.
 */
export async function askYesNo(text: string, options: TerminalConsentOptions = { input: process.stdin, output: process.stderr }): Promise<boolean> {
  await flushInput(options.input);
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: options.input, output: options.output, terminal: false });
  try {
    return /^y(es)?$/i.test((await rl.question(`${text} [y/N] `)).trim());
  } finally {
    rl.close();
  }
}

async function prompt(options: TerminalConsentOptions, request: ConsentRequest, env: ConsentEnvironment): Promise<ConsentAnswer> {
  env.signal.throwIfAborted();
  await flushInput(options.input);
  env.signal.throwIfAborted();
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: options.input, output: options.output, terminal: false });
  try {
    const session = request.session !== undefined;
    const choices = `[y] once${session ? ', [s] this call for the session, [t] this tool for the session' : ''}, [N] deny`;
    const answer = (await rl.question(`\n${describeConsentRequest(request)}\nAllow? ${choices}: `, { signal: env.signal })).trim().toLowerCase();
    const scope: GrantScope | undefined =
      answer === 'y' || answer === 'yes' ? ONCE : session && answer === 's' ? { match: 'call', duration: 'session' } : session && answer === 't' ? { match: 'tool', duration: 'session' } : undefined;
    if (scope === undefined) return { approved: false, reason: 'denied at the terminal', approver: 'terminal', mediated: 'person' };
    return { approved: true, scope, approver: 'terminal', mediated: 'person' };
  } finally {
    rl.close();
  }
}

/** Prints the supply-chain findings of an admitted launch to stderr (`AdmitOptions.warned` of `gateway`, `scan`, `wrap`). */
export function printLaunchFindings(server: { readonly id: string }, findings: readonly LaunchFinding[]): void {
  process.stderr.write([`Launch of server "${server.id}":`, ...describeFindings(findings)].join('\n') + '\n');
}
