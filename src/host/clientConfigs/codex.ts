/**
 * Codex's `config.toml` (`~/.codex/config.toml`, or `$CODEX_HOME/config.toml`; project
 * `.codex/config.toml`): one `[mcp_servers.<name>]` table per server, with `command`, `args`,
 * `env`, `env_vars` (variables forwarded from Codex's environment), `cwd`, or `url` with
 * `bearer_token_env_var`, `http_headers` and `env_http_headers` for a Streamable HTTP server.
 * Wrap and unwrap edit the text table by table, so comments and the rest of the file stay.
 *
 * @module
 */
import { parse, stringify, TomlError } from 'smol-toml';
import { readEntries, readEntry, SkipEntry } from './entries.js';
import { sameJson } from './jsonEdit.js';
import { tomlBlocks, type TomlBlock } from './tomlBlocks.js';
import { ClientConfigError, GATEWAY_ENTRY_ID, isRecord, launchFields, type ClientFormat, type ClientServers, type EditResult, type GatewayLaunch, type ImportedServer } from './types.js';
import { noVariables } from './variables.js';

const SECTION = 'mcp_servers';
const STDIO = ['command', 'args', 'env', 'cwd', 'env_vars', 'enabled'];
const REMOTE = ['url', 'bearer_token_env_var', 'http_headers', 'env_http_headers', 'enabled'];

function parseToml(text: string, file: string): Record<string, unknown> {
  try {
    return parse(text) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof TomlError) throw new ClientConfigError(file, `invalid TOML: ${error.message.split('\n')[0] ?? ''}`, { line: error.line, column: error.column }, { cause: error });
    throw error;
  }
}

function stringRecord(value: unknown, where: string): Record<string, string> {
  if (value === undefined) return {};
  if (!isRecord(value) || !Object.values(value).every((v) => typeof v === 'string')) throw new SkipEntry(`${where} is not a table of strings`);
  return value as Record<string, string>;
}

/** One Codex table → a neutral server. */
function readCodexEntry(id: string, raw: unknown): ImportedServer {
  if (!isRecord(raw)) throw new SkipEntry('the entry is not a table');
  const remote = typeof raw['url'] === 'string';
  const known = remote ? REMOTE : STDIO;
  const notes = Object.keys(raw)
    .filter((k) => !known.includes(k))
    .map((k) => `option ${JSON.stringify(k)} has no Switchboard equivalent; not carried over`);
  const pick = Object.fromEntries(Object.entries(raw).filter(([k]) => ['command', 'args', 'env', 'cwd', 'url'].includes(k)));
  const server = readEntry(id, { ...pick, ...(raw['enabled'] === false ? { disabled: true } : {}), ...(remote ? { type: 'http' } : {}) }, { urlKeys: { url: 'http' }, resolve: noVariables }, notes);
  if (remote) {
    const headers: Record<string, string> = { ...('headers' in server.entry ? server.entry.headers : {}), ...stringRecord(raw['http_headers'], 'http_headers') };
    for (const [name, variable] of Object.entries(stringRecord(raw['env_http_headers'], 'env_http_headers'))) headers[name] = `\${env:${variable}}`;
    if (typeof raw['bearer_token_env_var'] === 'string') headers['Authorization'] = `Bearer \${env:${raw['bearer_token_env_var']}}`;
    return { ...server, entry: { ...server.entry, ...(Object.keys(headers).length > 0 ? { headers } : {}) } };
  }
  const forwarded = raw['env_vars'];
  if (forwarded === undefined) return server;
  if (!Array.isArray(forwarded)) throw new SkipEntry('env_vars is not an array');
  const env: Record<string, string> = { ...('env' in server.entry ? server.entry.env : {}) };
  for (const item of forwarded) {
    const name = typeof item === 'string' ? item : isRecord(item) && typeof item['name'] === 'string' ? item['name'] : undefined;
    if (name === undefined) throw new SkipEntry('env_vars holds something other than names');
    env[name] ??= `\${env:${name}}`;
  }
  return { ...server, entry: { ...server.entry, env } };
}

function mcpBlocks(text: string): TomlBlock[] {
  return tomlBlocks(text).filter((b) => b.keys[0] === SECTION);
}

/** Removes `remove` blocks and puts `insert` where the first of them was. */
function spliceBlocks(text: string, remove: readonly TomlBlock[], insert: string): string {
  let out = '';
  let at = 0;
  remove.forEach((block, i) => {
    out += text.slice(at, block.start) + (i === 0 ? insert : '');
    at = block.end;
  });
  return out + text.slice(at);
}

function withoutSection(doc: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(doc).filter(([k]) => k !== SECTION));
}

/** Re-parses an edit: the server tables must be `expected` and everything else as before. */
function checked(text: string, file: string, before: Record<string, unknown>, expected: unknown): EditResult {
  const after = parseToml(text, file);
  if (!sameJson(after[SECTION], expected) || !sameJson(withoutSection(after), withoutSection(before))) {
    throw new ClientConfigError(file, `${SECTION} is laid out in a way wrap cannot edit safely (keep each server in its own [${SECTION}.<name>] table); the file was left unchanged`);
  }
  return { text, changed: true };
}

function isWrapped(doc: Record<string, unknown>): boolean {
  return isRecord(doc[SECTION]) && Object.hasOwn(doc[SECTION], GATEWAY_ENTRY_ID);
}

/** The Codex format. */
export function codexFormat(): ClientFormat {
  return {
    parse(text: string, file: string): ClientServers {
      const doc = parseToml(text, file);
      return { ...readEntries(doc[SECTION], { urlKeys: {}, resolve: noVariables }, readCodexEntry), wrapped: isWrapped(doc) };
    },
    wrap(text: string, file: string, launch: GatewayLaunch): EditResult {
      const doc = parseToml(text, file);
      if (isWrapped(doc)) return { text, changed: false };
      const eol = text.includes('\r\n') ? '\r\n' : '\n';
      const entry = { ...launchFields(launch), args: [...launch.args] };
      // The env table goes inline (`env = { NAME = "value" }`), so it stays inside this server's table.
      const { env, ...plain } = entry;
      const inline = env === undefined ? '' : `env = { ${Object.entries(env).map(([k, v]) => `${stringify({ [k]: v }).trim()}`).join(', ')} }\n`;
      const body = `[${SECTION}.${GATEWAY_ENTRY_ID}]${eol}${(stringify(plain).trimEnd() + (inline === '' ? '' : `\n${inline.trimEnd()}`)).split('\n').join(eol)}${eol}`;
      const blocks = mcpBlocks(text);
      let out: string;
      if (blocks.length === 0) {
        out = text.length === 0 ? body : `${text}${text.endsWith('\n') ? '' : eol}${eol}${body}`;
      } else {
        const last = blocks[blocks.length - 1] as TomlBlock;
        const gap = last.end < text.length ? eol : '';
        out = spliceBlocks(text, blocks, body + gap);
      }
      return checked(out, file, doc, { [GATEWAY_ENTRY_ID]: entry });
    },
    unwrap(text: string, file: string, backup: string): EditResult {
      const doc = parseToml(text, file);
      if (!isWrapped(doc)) return { text, changed: false };
      const original = parseToml(backup, `${file} (backup)`)[SECTION];
      const current = isRecord(doc[SECTION]) ? doc[SECTION] : {};
      const kept = Object.keys(current).filter((k) => k !== GATEWAY_ENTRY_ID);
      const restore = mcpBlocks(backup).filter((b) => b.keys[1] === undefined ? kept.length === 0 : !kept.includes(b.keys[1]));
      const gateway = mcpBlocks(text).filter((b) => b.keys[1] === GATEWAY_ENTRY_ID);
      const expected: Record<string, unknown> = Object.fromEntries(kept.map((k) => [k, current[k]]));
      for (const [k, v] of Object.entries(isRecord(original) ? original : {})) if (!kept.includes(k)) expected[k] = v;
      let out = spliceBlocks(text, gateway, restore.map((b) => backup.slice(b.start, b.end)).join(''));
      // Wrap appended the table after a blank line to a file that had none: take that line back.
      if (restore.length === 0 && gateway.at(-1)?.end === text.length) out = out.replace(/(\r?\n)\r?\n$/, '$1');
      return checked(out, file, doc, Object.keys(expected).length === 0 && original === undefined ? undefined : expected);
    },
  };
}
