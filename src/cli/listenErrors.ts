/**
 * What a failed `listen` means to the person who ran the command: a port in use or an address
 * that cannot be bound becomes a {@link CliFailure} that says what to change (`--port`,
 * `--host`), instead of Node's `listen EADDRINUSE: address already in use`.
 *
 * @module
 */
import { CliFailure } from './args.js';

/** `error` from listening on `host`:`port`, as the failure to show (other errors are returned as they are). */
export function listenFailure(error: unknown, host: string, port: number): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'EADDRINUSE') {
    return new CliFailure(`port ${port} on ${host} is already in use: stop what runs there, or choose another port with --port N (0 picks a free one)`, { cause: error });
  }
  if (code === 'EADDRNOTAVAIL' || code === 'EACCES') {
    return new CliFailure(`cannot listen on ${host}:${port} (${String(code)}): check --host and --port`, { cause: error });
  }
  return error;
}
