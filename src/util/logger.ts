/**
 * The logging seam. Library code never writes to the console or to stdout; it reports
 * through a {@link Logger}, which applications point wherever they like (on stdio servers,
 * stderr). The default drops everything.
 *
 * @module
 */

/** A structured logger. `fields` are plain JSON-friendly data. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const noop = (): void => {};

/** A logger that discards everything. */
export const silentLogger: Logger = Object.freeze({ debug: noop, info: noop, warn: noop, error: noop });

/** Log levels in increasing severity, for {@link createLineLogger}. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const levelRank: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/**
 * A logger that writes one JSON line per entry through `write` (for example to stderr),
 * dropping entries below `level`.
 */
export function createLineLogger(write: (line: string) => void, level: LogLevel = 'info'): Logger {
  const min = levelRank[level];
  const emit = (lvl: LogLevel, message: string, fields?: Record<string, unknown>): void => {
    if (levelRank[lvl] < min) return;
    let line: string;
    try {
      line = JSON.stringify({ level: lvl, msg: message, ...fields });
    } catch {
      line = JSON.stringify({ level: lvl, msg: message });
    }
    write(line + '\n');
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
  };
}
