/**
 * A line scanner for TOML that finds table headers (`[a.b]`, `[[a.b]]`) and the block of text
 * each one owns, without being fooled by brackets inside strings, multi-line strings or
 * multi-line arrays. Used to cut `[mcp_servers.*]` tables out of a Codex `config.toml` and to
 * put them back verbatim, so comments and layout elsewhere stay untouched.
 * See https://toml.io/en/v1.0.0#table.
 *
 * @module
 */

/** One table header and the text it owns (up to the next header or the end). */
export interface TomlBlock {
  /** The dotted key of the header, unquoted. */
  readonly keys: readonly string[];
  /** Offset of the header line's first character. */
  readonly start: number;
  /** Offset just past the block (start of the next header line, or the text's length). */
  readonly end: number;
}

/** Splits a header's inside (`mcp_servers."my server"`) into keys; undefined if malformed. */
export function headerKeys(inner: string): string[] | undefined {
  const keys: string[] = [];
  let i = 0;
  const skip = (): void => {
    while (inner[i] === ' ' || inner[i] === '\t') i++;
  };
  for (;;) {
    skip();
    const quote = inner[i];
    if (quote === '"' || quote === "'") {
      let key = '';
      i++;
      while (i < inner.length && inner[i] !== quote) {
        if (quote === '"' && inner[i] === '\\') {
          const next = inner[i + 1] ?? '';
          key += ({ n: '\n', t: '\t', '"': '"', '\\': '\\' } as Record<string, string>)[next] ?? next;
          i += 2;
          continue;
        }
        key += inner[i++];
      }
      if (inner[i] !== quote) return undefined;
      i++;
      keys.push(key);
    } else {
      const bare = /^[A-Za-z0-9_-]+/.exec(inner.slice(i));
      if (bare === null) return undefined;
      keys.push(bare[0]);
      i += bare[0].length;
    }
    skip();
    if (i === inner.length) return keys;
    if (inner[i] !== '.') return undefined;
    i++;
  }
}

/** `[table]` or `[[array.of.tables]]`, with an optional comment; group 1 or 2 is the key. */
const HEADER = /^[ \t]*(?:\[\[([^\][]*)\]\]|\[([^\][]*)\])[ \t]*(#.*)?\r?$/;

/** Every table block of `text`, in order. Text before the first header is not a block. */
export function tomlBlocks(text: string): TomlBlock[] {
  const headers: { keys: string[]; start: number }[] = [];
  let depth = 0;
  let multiline: '"""' | "'''" | undefined;
  let offset = 0;
  for (const line of text.split('\n')) {
    const lineStart = offset;
    offset += line.length + 1;
    if (depth === 0 && multiline === undefined) {
      const match = HEADER.exec(line);
      const keys = match === null ? undefined : headerKeys((match[1] ?? match[2]) as string);
      if (keys !== undefined) {
        headers.push({ keys, start: lineStart });
        continue;
      }
    }
    for (let i = 0; i < line.length; i++) {
      if (multiline !== undefined) {
        if (line.startsWith(multiline, i)) {
          multiline = undefined;
          i += 2;
        } else if (line[i] === '\\' && multiline === '"""') i++;
        continue;
      }
      const c = line[i];
      if (c === '#') break;
      if (line.startsWith('"""', i) || line.startsWith("'''", i)) {
        multiline = line.slice(i, i + 3) as '"""' | "'''";
        i += 2;
      } else if (c === '"' || c === "'") {
        for (i++; i < line.length && line[i] !== c; i++) if (c === '"' && line[i] === '\\') i++;
      } else if (c === '[' || c === '{') depth++;
      else if (c === ']' || c === '}') depth = Math.max(0, depth - 1);
    }
  }
  return headers.map((h, i) => ({ keys: h.keys, start: h.start, end: headers[i + 1]?.start ?? text.length }));
}
