/**
 * The client side of the stdio transport: spawns the server as a child process, writes
 * newline-delimited JSON-RPC to its stdin and reads its stdout.
 *
 * The child leads its own process group, so shutdown reaches whatever it started. Shutdown
 * follows the spec: close the child's stdin, wait, then SIGTERM, then SIGKILL. The module
 * never touches the global `process`: the parent's environment is passed in by the caller.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/lifecycle
 * @module
 */
import type { ChildProcess } from 'node:child_process';
import { PassThrough, type Readable } from 'node:stream';
import type { ChannelSink } from '../../jsonrpc/channel.js';
import { defaultDecodeLimits, type DecodeLimits, type DecodeResult } from '../../jsonrpc/decode.js';
import type { JsonRpcMessage } from '../../jsonrpc/messages.js';
import { encodeLine, type LineReader } from '../../jsonrpc/ndjson.js';
import { McpError, McpErrorCode } from '../../util/errors.js';
import { silentLogger, type Logger } from '../../util/logger.js';
import type { SendOptions, Transport } from '../types.js';
import { createFrameReader, LineWriter, toBytes } from './framing.js';

/**
 * What to do with the server's stderr (its log channel, never an error signal):
 * inherit the parent's, expose it as {@link StdioClientTransport.stderr} (`'pipe'`; the
 * caller must consume it or the child blocks once the pipe fills), discard it, or hand each
 * decoded UTF-8 chunk to a callback.
 */
export type StdioStderr = 'inherit' | 'pipe' | 'ignore' | ((chunk: string) => void);

/** Options for a {@link StdioClientTransport}. */
export interface StdioClientTransportOptions {
  /** The executable. Spawned directly, never through a shell. */
  readonly command: string;
  /** Its arguments. */
  readonly args?: readonly string[];
  /**
   * The child's complete environment. Omitted: the child inherits the parent's whole
   * environment (Node's `spawn` default). Prefer passing
   * `defaultEnvironment(process.env, overrides)`, which keeps only harmless variables.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The child's working directory. Default: the parent's. */
  readonly cwd?: string;
  /** See {@link StdioStderr}. Default `'inherit'`. */
  readonly stderr?: StdioStderr;
  /** Decoder limits for the server's stdout; `maxBytes` also bounds one buffered line. */
  readonly limits?: DecodeLimits;
  /** Receives warnings: garbage or truncated output, unexpected exits. */
  readonly logger?: Logger;
  /** How long `close()` waits after closing stdin, and again after SIGTERM. Default 2,000 ms. */
  readonly shutdownTimeoutMs?: number;
}

/** How the child process ended: an exit code, or the signal that killed it. */
export interface ExitStatus {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/**
 * After the child exits, how long to wait for its stdout to drain (a grandchild may hold it
 * open); after its stdout ends, how long to wait for the exit before shutting it down.
 */
const STDOUT_DRAIN_GRACE_MS = 250;
/** How long a write that failed on a broken stdin waits for the exit that explains it. */
const STDIN_EXIT_WAIT_MS = 1_000;

/**
 * The process groups of every server this process spawned and has not yet seen shut down:
 * process-wide, as process groups are. {@link signalStdioServers} reaches them all at once.
 */
const liveGroups = new Set<(signal: NodeJS.Signals) => void>();

/**
 * Sends `signal` to the process group of every stdio server this process started and has not
 * yet shut down (servers still starting included), at once and synchronously (so it may run in
 * an `exit` handler), and returns how many groups it signalled. For a host that must be gone
 * in bounded time: `SIGTERM` when it is told to stop, `SIGKILL` after a grace, on a second
 * Ctrl-C, or when the process exits with servers left. Only the child on Windows.
 */
export function signalStdioServers(signal: NodeJS.Signals): number {
  for (const send of liveGroups) send(signal);
  return liveGroups.size;
}

/**
 * A {@link Transport} to an MCP server run as a child process.
 *
 * - `start()` spawns the child (`detached`, so it leads its own process group) and resolves
 *   once it is running; a spawn failure (e.g. `ENOENT`) rejects with `ERR_MCP_SPAWN_FAILED`
 *   whose `cause` is the system error.
 * - Each stdout line is decoded strictly. Garbage lines become failed decode frames for the
 *   sink (the connection logs them); an oversize line becomes a -32600 frame and is skipped.
 * - The child exiting at any time other than `close()` closes the sink with an
 *   `ERR_MCP_CONNECTION_CLOSED` reason ("The server process exited with code 1") whose `cause`
 *   is the {@link ExitStatus}, so the connection fails every pending request.
 * - `close()` ends stdin, waits `shutdownTimeoutMs` for the child to exit, then sends SIGTERM
 *   to its process group, waits again, then SIGKILL; it resolves once the child is gone, and
 *   sends a last SIGTERM to any group member left behind. On Windows only the child is killed.
 *
 * @example
 * ```ts
 * const transport = new StdioClientTransport({ command: 'node', args: ['server.js'], env: defaultEnvironment(process.env) });
 * const connection = new Connection(transport);
 * await connection.start();
 * ```
 */
export class StdioClientTransport implements Transport {
  readonly #options: StdioClientTransportOptions;
  readonly #logger: Logger;
  readonly #shutdownTimeoutMs: number;
  readonly #stderr: PassThrough | undefined;
  /** `process.kill` where process groups exist (not on Windows); set when spawning. */
  #posixKill: ((pid: number, signal: NodeJS.Signals) => void) | undefined;
  readonly #reader: LineReader;
  #sink: ChannelSink | undefined;
  #child: ChildProcess | undefined;
  #writer: LineWriter | undefined;
  #spawning: Promise<void> | undefined;
  #exit: ExitStatus | undefined;
  #exitReason: Error | undefined;
  #closeRequested = false;
  #closing: Promise<void> | undefined;
  #finished = false;
  #stdoutTimer: ReturnType<typeof setTimeout> | undefined;
  readonly #exited: Promise<void>;
  #resolveExited!: () => void;
  readonly #gone: Promise<void>;
  #resolveGone!: () => void;
  /** This transport's entry in {@link liveGroups}. */
  readonly #signalAll = (signal: NodeJS.Signals): void => this.#signalGroup(signal);

  constructor(options: StdioClientTransportOptions) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.#shutdownTimeoutMs = options.shutdownTimeoutMs ?? 2000;
    this.#stderr = options.stderr === 'pipe' ? new PassThrough() : undefined;
    this.#reader = createFrameReader(options.limits ?? defaultDecodeLimits, (frame) => this.#deliver(frame));
    this.#exited = new Promise((resolve) => (this.#resolveExited = resolve));
    this.#gone = new Promise((resolve) => (this.#resolveGone = resolve));
  }

  /** The child's process id, once spawned. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /**
   * The child's stderr when the `stderr` option is `'pipe'` (available before `start()`),
   * otherwise `null`.
   */
  get stderr(): Readable | null {
    return this.#stderr ?? null;
  }

  /** How the child ended, once it has. */
  get exitStatus(): ExitStatus | undefined {
    return this.#exit;
  }

  /**
   * Spawns the server and starts delivering its messages to `sink`. Rejects with
   * `ERR_MCP_SPAWN_FAILED` (cause: the system error) when the child cannot be started,
   * `ERR_MCP_ALREADY_STARTED` when called twice, `ERR_MCP_CONNECTION_CLOSED` after `close()`.
   */
  async start(sink: ChannelSink): Promise<void> {
    if (this.#sink !== undefined) throw new McpError(McpErrorCode.AlreadyStarted, 'The transport was already started');
    if (this.#closeRequested) throw new McpError(McpErrorCode.ConnectionClosed, 'The transport is closed');
    this.#sink = sink;
    this.#spawning = this.#spawn();
    await this.#spawning;
  }

  /**
   * Writes one message as a line on the child's stdin, waiting for `'drain'` when the pipe is
   * full. Rejects with `ERR_MCP_NOT_CONNECTED` before `start()`, `ERR_MCP_CONNECTION_CLOSED`
   * once the child has exited or `close()` was called.
   */
  send(message: JsonRpcMessage | readonly JsonRpcMessage[], _options?: SendOptions): Promise<void> {
    // Not `async`: the writer's promise is returned as is (one promise per flush, not one more per message).
    if (this.#closeRequested || this.#exit !== undefined || this.#finished) {
      return Promise.reject(
        new McpError(McpErrorCode.ConnectionClosed, this.#exitReason !== undefined ? `Cannot send: ${this.#exitReason.message}` : 'Cannot send: the transport is closed', {
          cause: this.#exit,
        }),
      );
    }
    if (this.#writer === undefined) return Promise.reject(new McpError(McpErrorCode.NotConnected, 'The transport is not started'));
    try {
      return this.#writer.write(encodeLine(message));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Shuts the server down: ends its stdin, waits up to `shutdownTimeoutMs` for it to exit,
   * then SIGTERMs its process group, waits again, then SIGKILLs it. Resolves once the child
   * is gone; `sink.closed()` is called without a reason. Idempotent.
   */
  close(): Promise<void> {
    this.#closeRequested = true;
    this.#closing ??= this.#terminate();
    return this.#closing;
  }

  async #spawn(): Promise<void> {
    const o = this.#options;
    const stderr = o.stderr ?? 'inherit';
    // Loaded here, not at import: a stdio *server* shares this module's entry and never spawns,
    // and importing node:child_process and node:process costs it ~4 ms of start-up.
    const [{ spawn }, { kill, platform }] = await Promise.all([import('node:child_process'), import('node:process')]);
    this.#posixKill = platform === 'win32' ? undefined : kill;
    let child: ChildProcess;
    try {
      child = spawn(o.command, [...(o.args ?? [])], {
        ...(o.cwd === undefined ? {} : { cwd: o.cwd }),
        ...(o.env === undefined ? {} : { env: { ...o.env } }),
        stdio: ['pipe', 'pipe', typeof stderr === 'function' ? 'pipe' : stderr],
        detached: true,
        shell: false,
        windowsHide: true,
      });
    } catch (error) {
      throw this.#spawnFailed(error);
    }
    this.#child = child;
    if (child.pid !== undefined) liveGroups.add(this.#signalAll);
    try {
      await new Promise<void>((resolve, reject) => {
        const onSpawn = (): void => {
          child.off('error', onError);
          resolve();
        };
        const onError = (error: Error): void => {
          child.off('spawn', onSpawn);
          reject(error);
        };
        child.once('spawn', onSpawn);
        child.once('error', onError);
      });
    } catch (error) {
      liveGroups.delete(this.#signalAll);
      child.stdin?.destroy();
      child.stdout?.destroy();
      child.stderr?.destroy();
      throw this.#spawnFailed(error);
    }
    this.#wire(child, stderr);
  }

  #spawnFailed(error: unknown): McpError {
    const detail = error instanceof Error ? error.message : String(error);
    const failure = new McpError(McpErrorCode.SpawnFailed, `Could not start the server process ${JSON.stringify(this.#options.command)}: ${detail}`, { cause: error });
    this.#exitReason = failure;
    this.#finish(failure);
    return failure;
  }

  #wire(child: ChildProcess, stderr: StdioStderr): void {
    const { stdin, stdout } = child;
    if (stdin === null || stdout === null) throw new McpError(McpErrorCode.SpawnFailed, 'The server process has no stdio pipes');
    // Requests of many upstream callers read in one poll share one write to the server.
    this.#writer = new LineWriter(stdin, "the server's stdin", 'turn', (closed) => this.#explainClosed(closed));
    stdin.on('error', (error: Error) => {
      this.#logger.debug("the server's stdin failed", { error: error.message });
      const writer = this.#writer;
      void this.#explainClosed(new McpError(McpErrorCode.ConnectionClosed, `The server's stdin failed: ${error.message}`, { cause: error })).then((reason) => writer?.fail(reason));
    });
    stdout.on('error', (error: Error) => this.#logger.warn("reading the server's stdout failed", { error: error.message }));
    stdout.on('data', (chunk: unknown) => this.#reader.push(toBytes(chunk)));
    stdout.on('end', () => this.#onStdoutEnd());
    child.on('exit', (code, signal) => this.#onExit(code, signal));
    child.on('error', (error) => this.#logger.warn('the server process reported an error', { error: error.message }));

    if (child.stderr !== null) {
      if (this.#stderr !== undefined) child.stderr.pipe(this.#stderr);
      else if (typeof stderr === 'function') {
        child.stderr.setEncoding('utf8');
        child.stderr.on('data', (chunk: string) => {
          try {
            stderr(chunk);
          } catch (error) {
            this.#logger.warn('the stderr callback threw', { error: String(error) });
          }
        });
      }
      child.stderr.on('error', (error: Error) => this.#logger.debug("reading the server's stderr failed", { error: error.message }));
    }
  }

  /**
   * What a write that met a broken stdin fails with: EPIPE or a close comes when the child exits
   * before reading everything, and its exit (a code, a signal) says why better than the pipe does,
   * so this waits for it (at most {@link STDIN_EXIT_WAIT_MS}; then `closed` as it is).
   */
  #explainClosed(closed: McpError): Promise<Error> {
    const reason = (): Error => (this.#exit !== undefined && this.#exitReason !== undefined ? this.#exitReason : closed);
    if (this.#exit !== undefined) return Promise.resolve(reason());
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(reason()), STDIN_EXIT_WAIT_MS);
      timer.unref?.();
      void this.#exited.then(() => {
        clearTimeout(timer);
        resolve(reason());
      });
    });
  }

  #deliver(frame: DecodeResult): void {
    if (this.#finished) return;
    if (!frame.ok && !('batch' in frame)) {
      this.#logger.warn('the server wrote something that is not a valid JSON-RPC message to stdout', { error: frame.error.message });
    }
    try {
      this.#sink?.receive(frame);
    } catch (error) {
      this.#logger.error('the sink threw while receiving a frame', { error: String(error) });
    }
  }

  #onStdoutEnd(): void {
    const left = this.#reader.end();
    if (left > 0) this.#logger.warn("the server's stdout ended in the middle of a message; dropped the unfinished line", { bytes: left });
    if (this.#exit !== undefined) {
      this.#finish(this.#closeRequested ? undefined : this.#exitReason);
      return;
    }
    if (this.#closeRequested) return;
    // Usually the exit is about to be reported. If not, the child can no longer answer
    // anything: shut it down rather than let requests hang.
    this.#stdoutTimer = setTimeout(() => {
      if (this.#exit !== undefined || this.#closeRequested) return;
      this.#logger.warn('the server closed its stdout while still running; shutting it down');
      this.#closing ??= this.#terminate();
    }, STDOUT_DRAIN_GRACE_MS);
  }

  #onExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.#exit = { code, signal };
    this.#resolveExited();
    const how = signal !== null ? `signal ${signal}` : `code ${String(code)}`;
    this.#exitReason = new McpError(McpErrorCode.ConnectionClosed, `The server process exited with ${how}`, { cause: { code, signal } });
    if (!this.#closeRequested) {
      this.#logger.warn('the server process exited unexpectedly', { code, signal });
      // What it started in its group goes with it (ESRCH when nothing is left).
      this.#signalGroup('SIGTERM', true);
      liveGroups.delete(this.#signalAll);
    }
    this.#writer?.fail(new McpError(McpErrorCode.ConnectionClosed, `Cannot send: ${this.#exitReason.message}`, { cause: this.#exit }));
    // Deliver whatever it wrote before exiting, but don't wait on a pipe a grandchild holds.
    const stdout = this.#child?.stdout;
    if (stdout === null || stdout === undefined || stdout.readableEnded || stdout.destroyed) {
      this.#finish(this.#closeRequested ? undefined : this.#exitReason);
      return;
    }
    this.#stdoutTimer = setTimeout(() => {
      // Timers run before I/O in an event-loop turn: after a stall, the EOF may be waiting
      // unread. Give it one I/O phase before declaring the pipe held.
      setImmediate(() => {
        if (this.#finished) return;
        this.#logger.debug("the server's stdout stayed open after it exited (a grandchild holds it?)");
        stdout.destroy();
        this.#finish(this.#closeRequested ? undefined : this.#exitReason);
      });
    }, STDOUT_DRAIN_GRACE_MS);
  }

  #finish(reason: Error | undefined): void {
    if (this.#finished) return;
    this.#finished = true;
    if (this.#stdoutTimer !== undefined) clearTimeout(this.#stdoutTimer);
    this.#child?.stdin?.destroy();
    this.#resolveExited();
    this.#resolveGone();
    this.#sink?.closed(reason);
  }

  async #terminate(): Promise<void> {
    await this.#spawning?.catch(() => undefined);
    const child = this.#child;
    if (child === undefined || this.#writer === undefined) {
      this.#finish(undefined);
      return;
    }
    if (this.#exit === undefined) {
      this.#writer.end();
      const timeout = this.#shutdownTimeoutMs;
      if (!(await this.#exitedWithin(timeout))) {
        this.#logger.debug('the server ignored stdin EOF; sending SIGTERM', { pid: child.pid });
        this.#signalGroup('SIGTERM');
        if (!(await this.#exitedWithin(timeout))) {
          this.#logger.warn('the server ignored SIGTERM; sending SIGKILL', { pid: child.pid });
          this.#signalGroup('SIGKILL');
        }
      }
      await this.#gone;
      // Anything the server left behind in its group goes too (ESRCH when nothing is left).
      this.#signalGroup('SIGTERM', true);
    }
    await this.#gone;
    liveGroups.delete(this.#signalAll);
  }

  async #exitedWithin(ms: number): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
    try {
      return await Promise.race([this.#exited.then(() => true as const), timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Signals the child's process group (POSIX), or just the child. */
  #signalGroup(signal: NodeJS.Signals, groupOnly = false): void {
    const child = this.#child;
    const pid = child?.pid;
    if (child === undefined || pid === undefined) return;
    const kill = this.#posixKill;
    if (kill !== undefined) {
      try {
        kill(-pid, signal);
        return;
      } catch (error) {
        if ((error as { code?: unknown }).code !== 'ESRCH') this.#logger.debug('could not signal the process group', { pid, error: String(error) });
      }
    }
    if (groupOnly || this.#exit !== undefined) return;
    try {
      child.kill(signal);
    } catch (error) {
      this.#logger.debug('could not signal the server process', { pid, error: String(error) });
    }
  }
}
