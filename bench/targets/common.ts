/**
 * What every benchmark server entry shares: its command line (`--mode stateless|session`,
 * `--tools N`), the ready line it prints, and a body reader for hand-wired `node:http` servers.
 *
 * Ready protocol: an HTTP entry listens on 127.0.0.1 with an ephemeral port and prints
 * `LISTENING <port>` on stdout; a stdio entry prints nothing on stdout but protocol.
 *
 * @module
 */
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The parsed command line of a target entry. */
export interface TargetArgs {
  /** `stateless` (2026-07-28, no session) or `session` (2025-11-25 with `Mcp-Session-Id`). */
  readonly mode: 'stateless' | 'session';
  /** How many tools to register: `echo` plus `tool_1`..`tool_{n-1}` with the same schema. */
  readonly tools: number;
}

/** The value after `name` on the command line (`--name value`), if any. */
export function argValue(name: string): string | undefined {
  const argv = process.argv.slice(2);
  const i = argv.indexOf(name);
  return i < 0 ? undefined : argv[i + 1];
}

/** Reads `--mode` and `--tools` from `process.argv`. */
export function targetArgs(): TargetArgs {
  const mode = argValue('--mode') === 'session' ? 'session' : 'stateless';
  return { mode, tools: Math.max(1, Number(argValue('--tools') ?? 1)) };
}

/** The names of the tools to register besides `echo`. */
export function extraToolNames(tools: number): string[] {
  return Array.from({ length: tools - 1 }, (_, i) => `tool_${i + 1}`);
}

/** The description every extra tool gets (so list payloads are comparable across targets). */
export const EXTRA_DESCRIPTION = 'Echoes the message back (bench filler tool).';

/** Listens on 127.0.0.1:0 and prints the ready line. */
export function announce(server: Server): void {
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`LISTENING ${(server.address() as AddressInfo).port}\n`);
  });
}

/** Reads a request body as a string. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Exits when told to (so the harness can stop a target cleanly). */
export function exitOnSignal(): void {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => process.exit(0));
}
