/**
 * The logging seam. Library code never writes to stdout; it reports through a {@link Logger},
 * which applications point wherever they like. Most defaults drop everything
 * ({@link silentLogger}); `McpServer` defaults to {@link consoleErrorLogger}, so a handler that
 * throws is never invisible.
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
 * How {@link createLineLogger} writes an entry: `json`, one JSON object a line
 * (`{"level","msg",...fields}`), or `text`, one line for a person:
 * `<level> [<server>] <message> key=value ...` (`info` and the `event` field left out, the
 * `server` field in brackets, on each line of a multi-line message).
 */
export type LogFormat = 'json' | 'text';

/** One entry as a line (with its newline) in `format`. */
export function formatLogLine(format: LogFormat, level: LogLevel, message: string, fields?: Record<string, unknown>): string {
  if (format === 'json') {
    try {
      return `${JSON.stringify({ level, msg: message, ...fields })}\n`;
    } catch {
      return `${JSON.stringify({ level, msg: message })}\n`;
    }
  }
  const { server, event: _event, ...rest } = fields ?? {};
  let line = level === 'info' ? '' : `${level} `;
  // Every line of a multi-line message about a server names it (a grep for the id finds them all).
  const tag = server === undefined ? '' : `[${String(server)}] `;
  line += tag + (tag === '' ? message : message.replaceAll('\n', `\n${tag}`));
  for (const [key, value] of Object.entries(rest)) {
    let shown: string;
    try {
      shown = typeof value === 'string' && /^[^\s"=]+$/.test(value) ? value : (JSON.stringify(value) ?? String(value));
    } catch {
      shown = String(value);
    }
    line += ` ${key}=${shown}`;
  }
  return `${line}\n`;
}

/**
 * A logger that writes one line per entry through `write` (for example to stderr), dropping
 * entries below `level`: JSON lines by default, or lines for a person ({@link LogFormat}).
 */
export function createLineLogger(write: (line: string) => void, level: LogLevel = 'info', format: LogFormat = 'json'): Logger {
  const min = levelRank[level];
  const emit = (lvl: LogLevel, message: string, fields?: Record<string, unknown>): void => {
    if (levelRank[lvl] < min) return;
    write(formatLogLine(format, lvl, message, fields));
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
  };
}

/**
 * Warnings and errors as JSON lines on the console's error stream (`console.error`: stderr
 * under Node, never stdout, so a stdio server's protocol stream stays clean); debug and info
 * are dropped. The default logger of `McpServer`; pass {@link silentLogger} to silence it, or
 * {@link createLineLogger} to choose the stream and level.
 */
export const consoleErrorLogger: Logger = Object.freeze(
  // eslint-disable-next-line no-console -- the one default that must not be silent: a failing handler has to show somewhere
  createLineLogger((line) => console.error(line.trimEnd()), 'warn'),
);
