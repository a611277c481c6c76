/**
 * How `switchboard gateway` stops: in bounded time, with no server process left behind.
 *
 * Each stdio server leads its own process group (`transport/stdio/client.ts`), so a terminal's
 * Ctrl-C reaches only the gateway, and the gateway decides the order; stopping a group reaches
 * what the server started (`npx` → `npm exec` → `sh` → `node`).
 *
 * | Trigger | What happens |
 * |---|---|
 * | stdin EOF (`--stdio`), first `SIGINT` | the gateway closes: each server gets stdin EOF, then SIGTERM, then SIGKILL of its group (2 s apart), servers still starting included |
 * | `SIGTERM`, `SIGHUP` (a supervisor, an MCP client's close) | the same, hurried: SIGTERM to every group now, SIGKILL {@link SIGTERM_GRACE_MS} later |
 * | a second `SIGINT` (Ctrl-C twice) | SIGKILL to every group now, exit 130 |
 * | none of these finished within {@link SHUTDOWN_DEADLINE_MS} | SIGKILL to every group, exit 1 |
 * | the process exits any other way (an uncaught error, `process.exit`) | SIGKILL to every group left, synchronously in `exit` |
 *
 * Not covered: the gateway itself killed with SIGKILL (or by the OOM killer) runs no code.
 * Node has no `PR_SET_PDEATHSIG`; its servers then see their stdin close (EOF), which MCP
 * stdio servers take as the end, and one that ignores EOF keeps running.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#stdio
 * @module
 */
import { signalStdioServers } from '../transport/stdio/client.js';
import type { Logger } from '../util/logger.js';

/** After a SIGTERM to the gateway, how long its servers' groups have between SIGTERM and SIGKILL. */
export const SIGTERM_GRACE_MS = 1000;

/**
 * The longest a shutdown takes: by then every group was sent SIGKILL and the process exits.
 * A graceful close of a server that ignores EOF and SIGTERM takes about 4 s (2 s + 2 s).
 */
export const SHUTDOWN_DEADLINE_MS = 10_000;

/** Stops the gateway once, whatever asks first (see the module comment). */
export class GatewayLifecycle {
  readonly #logger: Logger;
  readonly #exit: (code: number) => void;
  #close: (() => Promise<void>) | undefined;
  #stopping = false;
  #hurried = false;
  #timers: ReturnType<typeof setTimeout>[] = [];

  constructor(logger: Logger, exit: (code: number) => void = (code) => process.exit(code)) {
    this.#logger = logger;
    this.#exit = exit;
  }

  /** Takes over SIGINT, SIGTERM, SIGHUP and `exit`; call before any server starts. */
  install(): void {
    process.on('SIGINT', () => {
      if (!this.#stopping) return void this.stop('SIGINT');
      this.#logger.warn('second interrupt: killing every server now');
      this.#kill(130);
    });
    for (const signal of ['SIGTERM', 'SIGHUP'] as const) process.on(signal, () => this.#hurry(signal));
    // Last resort, synchronous: whatever is still running when the process goes, goes with it.
    process.on('exit', () => signalStdioServers('SIGKILL'));
  }

  /** What closes the gateway (servers, stores, listener), once it runs. */
  closeWith(close: () => Promise<void>): void {
    this.#close = close;
  }

  /**
   * Closes the gateway (its servers, gracefully) and exits with `code`; SIGKILL to every group
   * and exit 1 if that takes longer than {@link SHUTDOWN_DEADLINE_MS}. Idempotent.
   */
  async stop(reason: string, code = 0): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    this.#logger.info(`stopping (${reason})`, { event: 'gateway.stopping', reason });
    this.#later(SHUTDOWN_DEADLINE_MS, () => {
      this.#logger.error(`the gateway did not stop within ${SHUTDOWN_DEADLINE_MS} ms: killing every server`);
      this.#kill(1);
    });
    try {
      await this.#close?.();
    } catch (error) {
      this.#logger.error(`stopping the gateway: ${error instanceof Error ? error.message : String(error)}`);
      code = 1;
    }
    signalStdioServers('SIGKILL');
    for (const timer of this.#timers.splice(0)) clearTimeout(timer);
    this.#exit(code);
  }

  /** Told to stop by a supervisor: stop, and do not wait for servers that take their time. */
  #hurry(signal: string): void {
    void this.stop(signal);
    if (this.#hurried) return;
    this.#hurried = true;
    signalStdioServers('SIGTERM');
    this.#later(SIGTERM_GRACE_MS, () => signalStdioServers('SIGKILL'));
  }

  #kill(code: number): void {
    signalStdioServers('SIGKILL');
    this.#exit(code);
  }

  #later(ms: number, run: () => void): void {
    const timer = setTimeout(run, ms);
    timer.unref();
    this.#timers.push(timer);
  }
}
