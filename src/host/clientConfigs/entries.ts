/**
 * Reads one client server entry (the `mcpServers` family: command/args/env/cwd or a URL with
 * headers) into the neutral {@link ServerEntry}, rewriting variables and noting every option
 * that has no Switchboard equivalent.
 *
 * @module
 */
import { convertVariables, type VariableResolver } from './variables.js';
import { isRecord, type ImportedServer, type ServerEntry } from './types.js';

/** How one client spells its entries. */
export interface EntryDialect {
  /** Keys that hold a remote URL, with the transport each implies without `type` (`infer`: `sse` when the path ends in /sse, else http). */
  readonly urlKeys: Readonly<Record<string, 'http' | 'sse' | 'infer'>>;
  /** The variable syntax of the client. */
  readonly resolve: VariableResolver;
  /** Gemini CLI also expands bare `$NAME`. */
  readonly bareVariables?: boolean;
  /** Keys the client uses that mean nothing to Switchboard and need no note. */
  readonly silentKeys?: readonly string[];
}

const STDIO_KEYS = new Set(['command', 'args', 'env', 'cwd', 'type', 'disabled']);
const REMOTE_KEYS = new Set(['headers', 'type', 'disabled']);

/** A reason an entry cannot be imported. */
export class SkipEntry extends Error {
  override readonly name = 'SkipEntry';
}

function stringMap(value: unknown, where: string): Record<string, string> {
  if (!isRecord(value)) throw new SkipEntry(`${where} is not an object of strings`);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') throw new SkipEntry(`${where}.${k} is not a string`);
    out[k] = String(v);
  }
  return out;
}

/** Converts every value of `map` with the dialect's variables. */
export function convertMap(map: Record<string, string>, dialect: EntryDialect, notes: string[], where: string): Record<string, string> {
  return Object.fromEntries(Object.entries(map).map(([k, v]) => [k, convertVariables(v, dialect.resolve, notes, `${where}.${k}`, dialect.bareVariables)]));
}

/** The transport a URL entry uses. */
function remoteType(raw: Record<string, unknown>, implied: 'http' | 'sse' | 'infer'): 'http' | 'sse' {
  const type = raw['type'];
  if (type === 'sse') return 'sse';
  if (type === 'http' || type === 'streamable-http' || type === 'streamableHttp') return 'http';
  if (type === undefined) return implied === 'infer' ? (/\/sse\/?(\?|$)/.test(String(raw['url'] ?? raw['serverUrl'] ?? '')) ? 'sse' : 'http') : implied;
  throw new SkipEntry(`unknown transport type ${JSON.stringify(type)}`);
}

/**
 * Reads `raw` (the client's entry named `id`). Throws {@link SkipEntry} when the entry is not
 * a server Switchboard can run (no command or URL, wrong value types).
 */
export function readEntry(id: string, raw: unknown, dialect: EntryDialect, extraNotes: readonly string[] = []): ImportedServer {
  if (!isRecord(raw)) throw new SkipEntry('the entry is not an object');
  const notes: string[] = [...extraNotes];
  const convert = (value: string, where: string): string => convertVariables(value, dialect.resolve, notes, where, dialect.bareVariables);
  const disabled = raw['disabled'] === true || raw['enabled'] === false;
  const silent = new Set(['enabled', ...(dialect.silentKeys ?? [])]);
  let entry: ServerEntry;
  let known: Set<string>;
  const urlKey = Object.keys(dialect.urlKeys).find((k) => raw[k] !== undefined);
  if (typeof raw['command'] === 'string') {
    if (raw['type'] !== undefined && raw['type'] !== 'stdio') throw new SkipEntry(`type ${JSON.stringify(raw['type'])} with a command`);
    const args = raw['args'] ?? [];
    if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) throw new SkipEntry('args is not an array of strings');
    entry = {
      command: convert(raw['command'], 'command'),
      ...(args.length > 0 ? { args: args.map((a: string, i) => convert(a, `args[${i}]`)) } : {}),
      ...(raw['env'] !== undefined && Object.keys(stringMap(raw['env'], 'env')).length > 0 ? { env: convertMap(stringMap(raw['env'], 'env'), dialect, notes, 'env') } : {}),
      ...(typeof raw['cwd'] === 'string' ? { cwd: convert(raw['cwd'], 'cwd') } : {}),
      ...(disabled ? { disabled: true } : {}),
    };
    known = STDIO_KEYS;
  } else if (urlKey !== undefined) {
    const url = raw[urlKey];
    if (typeof url !== 'string') throw new SkipEntry(`${urlKey} is not a string`);
    const headers = raw['headers'] === undefined ? {} : stringMap(raw['headers'], 'headers');
    entry = {
      url: convert(url, urlKey),
      ...(Object.keys(headers).length > 0 ? { headers: convertMap(headers, dialect, notes, 'headers') } : {}),
      type: remoteType(raw, dialect.urlKeys[urlKey] ?? 'infer'),
      ...(disabled ? { disabled: true } : {}),
    };
    known = new Set([...REMOTE_KEYS, urlKey]);
  } else {
    throw new SkipEntry('it has neither a command nor a URL');
  }
  for (const key of Object.keys(raw)) {
    if (!known.has(key) && !silent.has(key) && !(key in dialect.urlKeys)) notes.push(`option ${JSON.stringify(key)} has no Switchboard equivalent; not carried over`);
  }
  return { id, entry, notes };
}

/** Reads every entry of a server map, collecting skipped ones with their reason. */
export function readEntries(
  section: unknown,
  dialect: EntryDialect,
  read: (id: string, raw: unknown) => ImportedServer = (id, raw) => readEntry(id, raw, dialect),
): { servers: ImportedServer[]; skipped: string[] } {
  const servers: ImportedServer[] = [];
  const skipped: string[] = [];
  if (!isRecord(section)) return { servers, skipped };
  for (const [id, raw] of Object.entries(section)) {
    try {
      servers.push(read(id, raw));
    } catch (error) {
      if (!(error instanceof SkipEntry)) throw error;
      skipped.push(`${JSON.stringify(id)}: ${error.message}; not imported`);
    }
  }
  return { servers, skipped };
}
