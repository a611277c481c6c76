/**
 * `switchboard dev <server.ts>`: runs a TypeScript MCP server file through `tsx watch`, so it
 * restarts whenever the file (or what it imports) changes, and prints how to connect to it.
 *
 * The server gets `PORT` (from `--port`, default 3000) in its environment; the printed URL is
 * `http://127.0.0.1:$PORT` + `--path` (default `/mcp`), and the stdio command line for a host
 * that spawns the server itself. `tsx` is looked up from the current directory first, then
 * next to Switchboard; when neither has it the command says how to install it and exits 1.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { CliFailure, portOption, UsageError } from '../args.js';
import { defineCommand, type ParsedCommand } from '../command.js';

/** The message when tsx cannot be found. */
export const TSX_MISSING = 'tsx is not installed: install it with npm i -D tsx (switchboard dev runs the server file through tsx watch)';

/** The path of tsx's CLI as resolved from each directory in `from`, first match; undefined when none has it. */
export function findTsx(from: readonly string[]): string | undefined {
  for (const dir of from) {
    try {
      return createRequire(join(resolve(dir), 'noop.js')).resolve('tsx/cli');
    } catch {
      // Not resolvable from there: try the next.
    }
  }
  return undefined;
}

/** The lines that say how to connect to the dev server. */
export function connectHint(file: string, port: number, path: string): string {
  const url = `http://127.0.0.1:${port}${path}`;
  return [
    `switchboard dev: running ${file} with tsx watch (restarts on change; Ctrl-C stops)`,
    `  HTTP server:  ${url}   e.g. switchboard tools ${url}`,
    `  stdio server: switchboard tools "npx tsx ${file}"`,
    '',
  ].join('\n');
}

/** `switchboard dev`. */
export const command = defineCommand({
  name: 'dev',
  summary: 'run a TypeScript server file, reloading it on change (through tsx)',
  usage: ['[--port N] [--path /mcp] <server.ts> [-- args...]'],
  description: `Runs a TypeScript MCP server file with tsx, restarting it when the file (or anything it
imports) changes, and prints how to connect to it. The server is started with PORT=N in its
environment (serve Streamable HTTP on that port; or ignore it for a stdio server).`,
  positionals: [
    { name: '<server.ts>', description: 'the server file' },
    { name: '[-- args...]', description: "the server's own arguments" },
  ],
  options: {
    port: { type: 'string', value: 'N', description: 'the PORT the server is given', default: '$PORT when set, else 3000' },
    path: { type: 'string', value: 'P', description: 'the endpoint path shown in the connect hint', default: '/mcp' },
  },
  notes: 'Needs tsx (npm i -D tsx).',
  run: runDev,
});

/** Runs the command; resolves with the server's exit code once it stops. */
async function runDev({ options, positionals, afterDash }: ParsedCommand): Promise<number> {
  const [file, extra] = positionals;
  if (file === undefined) throw new UsageError('missing <server.ts>');
  if (extra !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(extra)} (put the server's arguments after --)`);
  if (!existsSync(file)) throw new CliFailure(`${file} does not exist`);
  const envPort = process.env['PORT']?.trim();
  const port = portOption(options['port'] ?? (envPort === '' ? undefined : envPort), 3000);
  const path = typeof options['path'] === 'string' ? options['path'] : '/mcp';
  const tsx = findTsx([process.cwd(), new URL('.', import.meta.url).pathname]);
  if (tsx === undefined) throw new CliFailure(TSX_MISSING);

  process.stderr.write(connectHint(file, port, path));
  const child = spawn(process.execPath, [tsx, 'watch', '--clear-screen=false', file, ...(afterDash ?? [])], {
    stdio: 'inherit',
    env: { ...process.env, PORT: String(port) },
  });
  const stop = (): void => {
    child.kill('SIGTERM');
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return new Promise((resolveExit, reject) => {
    child.once('error', (error) => reject(new CliFailure(`could not start tsx: ${error.message}`, { cause: error })));
    child.once('exit', (code, signal) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolveExit(code ?? (signal === null ? 1 : 0));
    });
  });
}
