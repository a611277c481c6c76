/**
 * Typed field readers for config parsing: each checks one value and throws a
 * {@link ConfigError} naming the file, the JSON path and what was expected. Also the JSON
 * text parser that reports syntax errors by line and column.
 *
 * @module
 */
import { ConfigError, childPath } from './configTypes.js';

/** A JSON object value. */
export type JsonRecord = Readonly<Record<string, unknown>>;

/** Reads values of one config file, for error messages. */
export class ConfigReader {
  readonly file: string;

  constructor(file: string) {
    this.file = file;
  }

  /** Throws a {@link ConfigError} at `path`. */
  fail(path: string, detail: string): never {
    throw new ConfigError(this.file, path, detail);
  }

  /** `value` as a JSON object. */
  record(value: unknown, path: string): JsonRecord {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) this.fail(path, `expected an object, got ${describe(value)}`);
    return value as JsonRecord;
  }

  /** Throws for the first key of `value` not in `known` (strict sections). */
  strictKeys(value: JsonRecord, known: readonly string[], path: string): void {
    for (const key of Object.keys(value)) {
      if (!known.includes(key)) this.fail(childPath(path, key), `unknown key "${key}" (expected one of: ${known.join(', ')})`);
    }
  }

  /** A string; `nonEmpty` refuses `""`. */
  string(value: unknown, path: string, nonEmpty = false): string {
    if (typeof value !== 'string') this.fail(path, `expected a string, got ${describe(value)}`);
    if (nonEmpty && value === '') this.fail(path, 'expected a non-empty string');
    return value;
  }

  /** One of `choices`. */
  choice<T extends string>(value: unknown, choices: readonly T[], path: string): T {
    if (typeof value !== 'string' || !(choices as readonly string[]).includes(value)) {
      this.fail(path, `expected one of ${choices.map((c) => JSON.stringify(c)).join(', ')}, got ${describe(value)}`);
    }
    return value as T;
  }

  /** An integer within `[min, max]`. */
  integer(value: unknown, min: number, max: number, path: string): number {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      this.fail(path, `expected an integer from ${min} to ${max}, got ${describe(value)}`);
    }
    return value;
  }

  /** A boolean. */
  boolean(value: unknown, path: string): boolean {
    if (typeof value !== 'boolean') this.fail(path, `expected true or false, got ${describe(value)}`);
    return value;
  }

  /** An array of strings, each passed through `each` (e.g. env expansion). */
  strings(value: unknown, path: string, each: (item: string, path: string) => string = (s) => s): string[] {
    if (!Array.isArray(value)) this.fail(path, `expected an array of strings, got ${describe(value)}`);
    return value.map((item, i) => each(this.string(item, childPath(path, i)), childPath(path, i)));
  }

  /** An object of string values, each passed through `each`; keys are checked by `key`. */
  stringRecord(value: unknown, path: string, key: (name: string, path: string) => void, each: (item: string, path: string) => string): Record<string, string> {
    const record = this.record(value, path);
    const entries: [string, string][] = [];
    for (const [name, item] of Object.entries(record)) {
      const itemPath = childPath(path, name);
      key(name, itemPath);
      entries.push([name, each(this.string(item, itemPath), itemPath)]);
    }
    return Object.fromEntries(entries);
  }
}

/** A short description of a JSON value's type for messages. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${String(value)}`;
  return typeof value;
}

/**
 * Parses JSON text (a leading byte-order mark is ignored). A syntax error becomes a
 * {@link ConfigError} at path `$` with the 1-based line and column of the problem; the
 * message never quotes the text (it may hold secrets).
 */
export function parseJsonText(text: string, file: string): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return JSON.parse(body) as unknown;
  } catch (error) {
    const found = findSyntaxError(body);
    const { line, column } = locate(body, found.offset);
    throw new ConfigError(file, '$', `invalid JSON: ${found.reason}`, { cause: error, line, column });
  }
}

/** The offset and reason of the first JSON syntax error in `text` (run only after JSON.parse failed). */
function findSyntaxError(text: string): { offset: number; reason: string } {
  let i = 0;
  class Stop extends Error {
    constructor(readonly at: number, readonly reason: string) {
      super(reason);
    }
  }
  const ws = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i] as string)) i++;
  };
  const fail = (reason: string): never => {
    throw new Stop(i, i >= text.length ? 'unexpected end of input' : `${reason}, found ${JSON.stringify(text[i])}`);
  };
  const literal = (word: string): void => {
    if (text.startsWith(word, i)) i += word.length;
    else fail('expected a value');
  };
  const string = (): void => {
    i++;
    for (;;) {
      if (i >= text.length) fail('unterminated string');
      const ch = text.charCodeAt(i);
      if (ch === 0x22) return void i++;
      if (ch < 0x20) fail('control character in string');
      if (ch === 0x5c) {
        i++;
        if (text[i] === 'u') {
          if (!/^[0-9A-Fa-f]{4}$/.test(text.slice(i + 1, i + 5))) fail('bad \\u escape');
          i += 5;
        } else if (i < text.length && '"\\/bfnrt'.includes(text[i] as string)) i++;
        else fail('bad escape');
      } else i++;
    }
  };
  const value = (): void => {
    ws();
    const ch = text[i];
    if (ch === '{') {
      i++;
      ws();
      if (text[i] === '}') return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail('expected a double-quoted property name');
        string();
        ws();
        if (text[i] !== ':') fail('expected ":" after a property name');
        i++;
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === '}') return void i++;
        else fail('expected "," or "}"');
      }
    }
    if (ch === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (;;) {
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === ']') return void i++;
        else fail('expected "," or "]"');
      }
    }
    if (ch === '"') return string();
    if (ch === 't') return literal('true');
    if (ch === 'f') return literal('false');
    if (ch === 'n') return literal('null');
    const number = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (number === null) fail('expected a value');
    i += (number as RegExpExecArray)[0].length;
  };
  try {
    value();
    ws();
    if (i < text.length) fail('unexpected text after the JSON value');
  } catch (error) {
    if (error instanceof Stop) return { offset: error.at, reason: error.reason };
    return { offset: i, reason: 'nesting too deep' };
  }
  // JSON.parse refused what this scanner accepts (e.g. nesting too deep for V8).
  return { offset: 0, reason: 'the JSON parser refused the text' };
}

function locate(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}
