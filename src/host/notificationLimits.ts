/**
 * What a downstream server's notifications can make the host do, bounded: progress and log
 * messages relayed for a call are rate-limited and coalesced, and `list_changed` storms make
 * one re-list per window.
 *
 * - Progress ({@link ProgressRelay}): at most `progressPerSecond` per call (burst the same); past
 *   it only the latest is kept (each progress value supersedes the one before), and it is
 *   delivered when a token is due or the call ends, so the final value always arrives, before
 *   the result.
 * - Logs ({@link LogRelay}): a token bucket of `logsPerSecond` (burst the same); past it
 *   messages are dropped and counted, and one summary message (a `warning` naming the count)
 *   goes out per second of dropping and when the call ends.
 * - `list_changed` ({@link Relister}): the first change re-lists at once; changes during the
 *   window (or during a re-list) make one more re-list when it ends (trailing edge), so the
 *   last change is always followed by a re-list.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/tools#list-changed-notification
 * @module
 */
import type { Progress } from '../jsonrpc/connection.js';
import type { LoggingMessageParams } from '../protocol/model/utilities.js';

/** The rates of {@link ProgressRelay}, {@link LogRelay} and {@link Relister}. */
export interface NotificationLimits {
  /** Progress notifications relayed per call per second; the latest of the rest is kept (default 10). */
  readonly progressPerSecond: number;
  /** Log messages relayed per call (and per server outside calls) per second; the rest are dropped and counted (default 20). */
  readonly logsPerSecond: number;
  /** One re-list per server per this window (ms) however many `list_changed` arrive; 0 re-lists on each (default 500). */
  readonly listChangedWindowMs: number;
}

/** The defaults of {@link NotificationLimits}. */
export const DEFAULT_NOTIFICATION_LIMITS: NotificationLimits = Object.freeze({ progressPerSecond: 10, logsPerSecond: 20, listChangedWindowMs: 500 });

function unref(timer: ReturnType<typeof setTimeout>): ReturnType<typeof setTimeout> {
  (timer as { unref?: () => void }).unref?.();
  return timer;
}

/** A token bucket: `perSecond` tokens a second, at most `perSecond` held (the burst), full at the start. */
class TokenBucket {
  readonly perSecond: number;
  readonly #now: () => number;
  #tokens: number;
  #refilled: number;

  constructor(perSecond: number, now: () => number) {
    this.perSecond = perSecond;
    this.#now = now;
    this.#tokens = perSecond;
    this.#refilled = now();
  }

  /** Takes a token if there is one, after refilling. */
  take(): boolean {
    const now = this.#now();
    this.#tokens = Math.min(this.perSecond, this.#tokens + ((now - this.#refilled) * this.perSecond) / 1000);
    this.#refilled = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  /** Milliseconds until the next token, as of the last refill. */
  wait(): number {
    return Math.ceil(((1 - this.#tokens) * 1000) / this.perSecond);
  }
}

/**
 * Relays one call's progress at most `perSecond` times a second (a token bucket, burst the
 * same: a server's ordinary progress passes unchanged), keeping only the latest in between.
 */
export class ProgressRelay {
  readonly #deliver: (p: Progress) => void;
  readonly #bucket: TokenBucket;
  #pending: Progress | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(deliver: (p: Progress) => void, perSecond: number, now: () => number = Date.now) {
    this.#deliver = deliver;
    this.#bucket = new TokenBucket(perSecond, now);
  }

  /** A progress notification from the server. */
  push(p: Progress): void {
    if (this.#timer === undefined && this.#bucket.take()) {
      this.#deliver(p);
      return;
    }
    this.#pending = p;
    this.#timer ??= unref(setTimeout(() => this.#due(), this.#bucket.wait()));
  }

  /** Delivers the kept progress now (the call ended). */
  flush(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const pending = this.#pending;
    this.#pending = undefined;
    if (pending === undefined) return;
    // Delivered even without a token (the call ended); one is taken if there is one.
    this.#bucket.take();
    this.#deliver(pending);
  }

  #due(): void {
    this.#timer = undefined;
    const pending = this.#pending;
    this.#pending = undefined;
    if (pending !== undefined) this.push(pending);
  }
}

/** Relays log messages at most `perSecond` a second (burst the same); drops the rest with one summary a second. */
export class LogRelay {
  readonly #deliver: (params: LoggingMessageParams) => void;
  readonly #bucket: TokenBucket;
  readonly #source: string;
  #dropped = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  /** `source` names the server in the summary. */
  constructor(deliver: (params: LoggingMessageParams) => void, perSecond: number, source: string, now: () => number = Date.now) {
    this.#deliver = deliver;
    this.#bucket = new TokenBucket(perSecond, now);
    this.#source = source;
  }

  /** A log message from the server. */
  push(params: LoggingMessageParams): void {
    if (this.#bucket.take()) {
      this.#deliver(params);
      return;
    }
    this.#dropped++;
    this.#timer ??= unref(setTimeout(() => this.flush(), 1000));
  }

  /** Delivers the summary of what was dropped, if anything was (the call ended, or a second of dropping passed). */
  flush(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const dropped = this.#dropped;
    if (dropped === 0) return;
    this.#dropped = 0;
    this.#deliver({
      level: 'warning',
      logger: 'switchboard',
      data: `switchboard dropped ${dropped} log message${dropped === 1 ? '' : 's'} from server ${this.#source} (more than ${this.#bucket.perSecond} per second)`,
    });
  }
}

/**
 * Runs a re-list on `list_changed`, at most one starting per `windowMs`: the first at once,
 * the changes after it (during the window or the re-list) coalesced into one more at the
 * window's end. Re-lists never overlap.
 */
export class Relister {
  readonly #relist: () => Promise<void>;
  readonly #windowMs: number;
  readonly #now: () => number;
  #lastStart = -Infinity;
  #running = false;
  #wanted = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;

  constructor(relist: () => Promise<void>, windowMs: number, now: () => number = Date.now) {
    this.#relist = relist;
    this.#windowMs = windowMs;
    this.#now = now;
  }

  /** A `list_changed` arrived. */
  changed(): void {
    if (this.#stopped) return;
    this.#wanted = true;
    this.#schedule();
  }

  /** Forgets pending re-lists (the connection is gone). */
  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #schedule(): void {
    if (this.#running || this.#timer !== undefined || !this.#wanted || this.#stopped) return;
    const wait = this.#lastStart + this.#windowMs - this.#now();
    if (wait <= 0) {
      void this.#run();
      return;
    }
    // Kept referenced: a wanted re-list is work still owed (at most one window), and whoever waits for the
    // catalog it brings must not see the process go idle first. `stop()` clears it.
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#schedule();
    }, wait);
  }

  async #run(): Promise<void> {
    this.#wanted = false;
    this.#running = true;
    this.#lastStart = this.#now();
    try {
      await this.#relist();
    } catch {
      // The re-list reports its own failures.
    } finally {
      this.#running = false;
      this.#schedule();
    }
  }
}

/** `deliver` behind a {@link LogRelay} (a server's log messages outside calls). */
export function relayLogs(deliver: (params: LoggingMessageParams) => void, limits: NotificationLimits | undefined, source: string): (params: LoggingMessageParams) => void {
  const relay = new LogRelay(deliver, (limits ?? DEFAULT_NOTIFICATION_LIMITS).logsPerSecond, source);
  return (params) => relay.push(params);
}

/** One call's progress and log relays (see {@link relayCall}). */
export interface CallRelay {
  /** Where the server's progress for the call goes; undefined when the caller asked for none. */
  readonly onProgress: ((p: Progress) => void) | undefined;
  /** Where the server's log messages for the call go; undefined when the caller asked for none. */
  readonly onLog: ((params: LoggingMessageParams) => void) | undefined;
  /** `run`, with the kept progress and the drop summary delivered once it settles, before its result goes on. */
  around<T>(run: Promise<T>): Promise<T>;
}

/** The relays of one call to server `source` (`given` limits, else the defaults); undefined when the caller takes neither progress nor logs. */
export function relayCall(
  given: NotificationLimits | undefined,
  source: string,
  onProgress: ((p: Progress) => void) | undefined,
  onLog: ((params: LoggingMessageParams) => void) | undefined,
): CallRelay | undefined {
  if (onProgress === undefined && onLog === undefined) return undefined;
  const limits = given ?? DEFAULT_NOTIFICATION_LIMITS;
  // Made on the first notification: most calls send none, and pay for nothing but this object.
  let progress: ProgressRelay | undefined;
  let log: LogRelay | undefined;
  const flush = (): void => {
    progress?.flush();
    log?.flush();
  };
  return {
    onProgress: onProgress === undefined ? undefined : (p) => (progress ??= new ProgressRelay(onProgress, limits.progressPerSecond)).push(p),
    onLog: onLog === undefined ? undefined : (params) => (log ??= new LogRelay(onLog, limits.logsPerSecond, source)).push(params),
    // One `then`, not `finally` (which chains three promises per call).
    around: (run) =>
      run.then(
        (value) => {
          flush();
          return value;
        },
        (error: unknown) => {
          flush();
          throw error;
        },
      ),
  };
}
