/**
 * `parseConfig`: `switchboard.json` text → a validated {@link HostConfig}.
 *
 * The shape (agreed in the project's config notes, published as
 * `schemas/switchboard.config.schema.json`):
 *
 * - `mcpServers` is what Claude Desktop and Cursor write. Unknown keys inside an entry are
 *   kept in `raw` and reported in `warnings`, never fatal; unknown top-level keys likewise.
 * - `switchboard` is strict: an unknown key is an error naming its JSON path.
 * - `${env:NAME}` / `${env:NAME:-default}` are expanded in `command`, `args[]`, `env`
 *   values, `cwd`, `url`, `headers` values and `gateway.auth.tokens[].token` (see `configEnv.ts`;
 *   a token is hashed at load, `configTokens.ts`).
 *
 * Checks beyond the JSON Schema (which checks shape only): `switchboard.servers` and
 * `approvedLaunches` keys must name configured servers (a stale approval is a warning),
 * `oauth` only applies to remote servers, `gateway.auth: "none"` only on a loopback host,
 * expanded header values may not contain CR/LF, and no expanded launch string may contain NUL.
 *
 * @module
 */
import type { AuditDurability } from './audit.js';
import { expandEnv } from './configEnv.js';
import { readConsoleClient, readServerAuth, readServerTenant } from './configDownstreamAuth.js';
import { readGuards } from './configGuards.js';
import { DEFAULT_GATEWAY_LIMITS, readGatewayLimits } from './configLimits.js';
import { readConsent } from './configConsent.js';
import { readRedact, readSanitize } from './configSanitize.js';
import { readAuditRetention } from './configRetention.js';
import { LABEL_OPTION_KEYS, readPolicy, readServerLabels } from './configPolicy.js';
import { folderOf, pathToFileUri, resolvePath } from './configPaths.js';
import { isLoopbackHttp } from './canonicalServerUrl.js';
import { readGatewayTokens } from './configTokens.js';
import { ConfigReader, type JsonRecord, parseJsonText } from './configRead.js';
import type { SignaturePolicy, TrustedKey } from './pins/signatureCheck.js';
import { parseEgressEntry, type EgressEntry } from './argumentUrls.js';
import {
  ConfigError,
  type ConfiguredRoot,
  type Exposure,
  type GatewayAuth,
  type GatewayDpopConfig,
  type GatewayConfig,
  type HostConfig,
  type NamespacingMode,
  type ServerConfig,
  type ServerEra,
  type ScanMode,
  type ServerLaunch,
  type ServerOAuthOptions,
  type ServerOptions,
  childPath,
} from './configTypes.js';

export { ConfigError } from './configTypes.js';

/** Options of {@link parseConfig}. */
export interface ParseConfigOptions {
  /** The config file's path: named in errors; relative `stateDir` and `cwd` resolve against its folder. */
  readonly file: string;
  /** The environment for `${env:NAME}` (e.g. `process.env`, passed in by the CLI). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * The state folder when the config sets no `stateDir`: keep it outside the folders servers
   * are given (the CLI passes the per-user folder's `state`). Default `.switchboard` beside the
   * config file.
   */
  readonly defaultStateDir?: string;
}

/** Server ids become name prefixes: `^[A-Za-z0-9_-]{1,32}$`. */
export const SERVER_ID_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;
/** A separator between server id and name: 1–4 of `_ . - /`. */
export const SEPARATOR_PATTERN = /^[_.\-/]{1,4}$/;
/** An approved launch digest. */
export const LAUNCH_DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/;

/** Defaults applied by {@link parseConfig}. */
export const CONFIG_DEFAULTS = {
  namespacing: 'on-collision',
  separator: '__',
  exposure: 'all',
  stateDir: '.switchboard',
  gateway: { host: '127.0.0.1', port: 8765, path: '/mcp' },
  timeoutMs: 60_000,
  // 64: a gateway's callers (32 at once in the bench) reach one server without queueing in the
  // host, and it is nodeFetch's socket pool per origin, past which a remote server's requests
  // would queue in the agent anyway. The cap still bounds what one slow server holds.
  maxConcurrency: 64,
  era: 'auto',
  scan: 'block',
} as const;

const ENTRY_KEYS = ['type', 'command', 'args', 'env', 'cwd', 'url', 'headers', 'disabled'];
const SWITCHBOARD_KEYS = ['namespacing', 'separator', 'exposure', 'stateDir', 'store', 'cache', 'gateway', 'approvedLaunches', 'servers', 'roots', 'guards', 'pins', 'audit', 'trustedKeys', 'consent', 'sanitize', 'redact', 'policy', 'console'];
const GATEWAY_KEYS = ['host', 'port', 'path', 'publicUrl', 'auth', 'limits'];
const OPTION_KEYS = ['tools', 'timeoutMs', 'startTimeoutMs', 'maxConcurrency', 'era', 'oauth', 'auth', 'tenant', 'roots', 'scan', 'checkArguments', 'egressAllow', 'commandTools', 'signature', ...LABEL_OPTION_KEYS];
const TYPES = ['stdio', 'http', 'streamable-http', 'sse'] as const;
const LOOPBACK = new Set(['127.0.0.1', '::1', '[::1]', 'localhost']);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Parses and validates a config file's text. Throws {@link ConfigError} (code
 * `ERR_MCP_INVALID_CONFIG`) with the JSON path of the first problem.
 */
export function parseConfig(text: string, options: ParseConfigOptions): HostConfig {
  const read = new ConfigReader(options.file);
  const root = read.record(parseJsonText(text, options.file), '$');
  const warnings: string[] = [];
  for (const key of Object.keys(root)) {
    if (key !== 'mcpServers' && key !== 'switchboard' && key !== '$schema') warnings.push(`${options.file}: ${childPath('$', key)}: unknown top-level key "${key}" ignored`);
  }
  const folder = folderOf(options.file);
  const entries = root['mcpServers'] === undefined ? {} : read.record(root['mcpServers'], '$.mcpServers');
  const ids = Object.keys(entries);
  for (const id of ids) {
    if (!SERVER_ID_PATTERN.test(id)) read.fail(childPath('$.mcpServers', id), `server id "${id}" must match ^[A-Za-z0-9_-]{1,32}$ (ids become name prefixes)`);
  }
  const section = root['switchboard'] === undefined ? {} : read.record(root['switchboard'], '$.switchboard');
  read.strictKeys(section, SWITCHBOARD_KEYS, '$.switchboard');
  const defaultRoots = section['roots'] === undefined ? [] : readRoots(read, section['roots'], '$.switchboard.roots', folder);
  const optionsById = readServerOptionsSection(read, section['servers'], ids, folder, options.env);
  const servers = ids.map((id) => readServer(read, id, entries[id], optionsById.get(id), { folder, env: options.env, warnings, defaultRoots }));
  const approvedLaunches = readApprovals(read, section['approvedLaunches'], ids, warnings);
  const stateDir = resolvePath(folder, section['stateDir'] === undefined ? (options.defaultStateDir ?? CONFIG_DEFAULTS.stateDir) : read.string(section['stateDir'], '$.switchboard.stateDir', true));
  return {
    file: options.file,
    servers,
    namespacing: section['namespacing'] === undefined ? CONFIG_DEFAULTS.namespacing : read.choice<NamespacingMode>(section['namespacing'], ['always', 'on-collision', 'never'], '$.switchboard.namespacing'),
    separator: section['separator'] === undefined ? CONFIG_DEFAULTS.separator : readSeparator(read, section['separator']),
    exposure: section['exposure'] === undefined ? CONFIG_DEFAULTS.exposure : read.choice<Exposure>(section['exposure'], ['all', 'search'], '$.switchboard.exposure'),
    stateDir,
    ...readSharedStores(read, section),
    gateway: readGateway(read, section['gateway'], options.env),
    guards: readGuards(read, section['guards']),
    consent: readConsent(read, section['consent'], options.env, warnings),
    sanitize: readSanitize(read, section['sanitize']),
    redact: readRedact(read, section['redact']),
    policy: readPolicy(read, section['policy']),
    pins: section['pins'] === undefined ? true : read.boolean(section['pins'], '$.switchboard.pins'),
    ...readAudit(read, section['audit'], folder, stateDir),
    console: readConsole(read, section['console']),
    trustedKeys: readTrustedKeys(read, section['trustedKeys'], ids),
    approvedLaunches,
    warnings,
  };
}

/** `switchboard.console`: `true`/`false`, or `{ "enabled": bool }`; default on. */
function readConsole(read: ConfigReader, value: unknown): boolean {
  if (value === undefined) return true;
  if (typeof value === 'boolean') return value;
  const section = read.record(value, '$.switchboard.console');
  read.strictKeys(section, ['enabled'], '$.switchboard.console');
  return section['enabled'] === undefined ? true : read.boolean(section['enabled'], '$.switchboard.console.enabled');
}

/** `switchboard.store` (a PostgreSQL URL) and `switchboard.cache` (a Redis URL), when set. */
function readSharedStores(read: ConfigReader, section: Record<string, unknown>): Pick<HostConfig, 'store' | 'cache'> {
  const url = (key: 'store' | 'cache', schemes: readonly string[]): string | undefined => {
    if (section[key] === undefined) return undefined;
    const value = read.string(section[key], `$.switchboard.${key}`, true);
    if (!schemes.some((scheme) => value.startsWith(`${scheme}://`))) read.fail(`$.switchboard.${key}`, `expected a ${schemes.map((s) => `${s}://`).join(' or ')} URL`);
    return value;
  };
  const store = url('store', ['postgres', 'postgresql']);
  const cache = url('cache', ['redis', 'rediss']);
  return { ...(store !== undefined ? { store } : {}), ...(cache !== undefined ? { cache } : {}) };
}

interface EntryContext {
  readonly folder: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly warnings: string[];
  readonly defaultRoots: readonly ConfiguredRoot[];
}

function readServer(read: ConfigReader, id: string, value: unknown, options: RawOptions | undefined, context: EntryContext): ServerConfig {
  const path = childPath('$.mcpServers', id);
  const raw = read.record(value, path);
  for (const key of Object.keys(raw)) {
    if (!ENTRY_KEYS.includes(key)) context.warnings.push(`${read.file}: ${childPath(path, key)}: unknown key "${key}" kept but not used`);
  }
  const launch = readLaunch(read, raw, path, context);
  const disabled = raw['disabled'] === undefined ? false : read.boolean(raw['disabled'], childPath(path, 'disabled'));
  if (options?.oauth !== undefined && launch.kind === 'stdio') {
    read.fail(childPath(childPath('$.switchboard.servers', id), 'oauth'), `oauth applies only to remote (url) servers; "${id}" is a stdio server`);
  }
  if (options?.value.auth !== undefined && launch.kind === 'stdio') {
    read.fail(childPath(childPath('$.switchboard.servers', id), 'auth'), `auth applies only to remote (url) servers; "${id}" is a stdio server`);
  }
  const own = options?.value ?? defaultOptions();
  return { id, raw, launch, disabled, options: options?.roots === undefined ? { ...own, roots: context.defaultRoots } : own };
}

function readLaunch(read: ConfigReader, raw: JsonRecord, path: string, context: EntryContext): ServerLaunch {
  const type = raw['type'] === undefined ? undefined : read.choice(raw['type'], TYPES, childPath(path, 'type'));
  const hasCommand = raw['command'] !== undefined;
  const hasUrl = raw['url'] !== undefined;
  if (hasCommand && hasUrl) read.fail(path, 'expected either "command" (a local stdio server) or "url" (a remote server), not both');
  if (!hasCommand && !hasUrl) read.fail(path, 'expected "command" (a local stdio server) or "url" (a remote server)');
  const expand = (text: string, at: string): string => {
    const out = expandEnv(text, { file: read.file, path: at, env: context.env });
    if (out.includes('\0')) read.fail(at, 'contains a NUL character');
    return out;
  };
  if (hasCommand) {
    if (type !== undefined && type !== 'stdio') read.fail(childPath(path, 'type'), `type "${type}" needs "url", but the entry has "command"`);
    for (const key of ['url', 'headers']) if (raw[key] !== undefined) read.fail(childPath(path, key), `"${key}" applies only to remote (url) servers`);
    const cwd = raw['cwd'] === undefined ? undefined : expand(read.string(raw['cwd'], childPath(path, 'cwd'), true), childPath(path, 'cwd'));
    return {
      kind: 'stdio',
      command: expand(read.string(raw['command'], childPath(path, 'command'), true), childPath(path, 'command')),
      args: raw['args'] === undefined ? [] : read.strings(raw['args'], childPath(path, 'args'), expand),
      env: raw['env'] === undefined ? {} : read.stringRecord(raw['env'], childPath(path, 'env'), (name, at) => checkEnvName(read, name, at), expand),
      cwd: cwd === undefined ? undefined : resolvePath(context.folder, cwd),
    };
  }
  if (type === 'stdio') read.fail(childPath(path, 'type'), 'type "stdio" needs "command", but the entry has "url"');
  for (const key of ['command', 'args', 'env', 'cwd']) if (raw[key] !== undefined) read.fail(childPath(path, key), `"${key}" applies only to local (command) servers`);
  const urlPath = childPath(path, 'url');
  const url = expand(read.string(raw['url'], urlPath, true), urlPath);
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (parsed === undefined || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) read.fail(urlPath, 'expected an absolute http: or https: URL');
  if (parsed.protocol === 'http:' && !LOOPBACK.has(parsed.hostname)) {
    context.warnings.push(`${read.file}: ${urlPath}: plain http to a non-loopback host sends requests (and any token) unencrypted; use https`);
  }
  const headers =
    raw['headers'] === undefined
      ? {}
      : read.stringRecord(
          raw['headers'],
          childPath(path, 'headers'),
          (name, at) => {
            if (!HEADER_NAME.test(name)) read.fail(at, `"${name}" is not a valid HTTP header name`);
          },
          (item, at) => {
            const out = expand(item, at);
            if (/[\r\n]/.test(out)) read.fail(at, 'header value contains CR or LF (after ${env:…} expansion)');
            return out;
          },
        );
  return { kind: type === 'sse' ? 'sse' : 'http', url, headers };
}

function checkEnvName(read: ConfigReader, name: string, path: string): void {
  if (name === '' || name.includes('=') || name.includes('\0')) read.fail(path, `"${name}" is not a valid environment variable name`);
}

interface RawOptions {
  readonly value: ServerOptions;
  readonly oauth: unknown;
  /** The server's own `roots`, if it has any (else the `switchboard.roots` default applies). */
  readonly roots: unknown;
}

function defaultOptions(): ServerOptions {
  return { tools: { allow: undefined, deny: [] }, timeoutMs: CONFIG_DEFAULTS.timeoutMs, maxConcurrency: CONFIG_DEFAULTS.maxConcurrency, era: CONFIG_DEFAULTS.era, oauth: undefined, roots: [], signature: 'warn' };
}

function readServerOptionsSection(read: ConfigReader, value: unknown, ids: readonly string[], folder: string, env: Readonly<Record<string, string | undefined>>): Map<string, RawOptions> {
  const out = new Map<string, RawOptions>();
  if (value === undefined) return out;
  const section = read.record(value, '$.switchboard.servers');
  for (const [id, item] of Object.entries(section)) {
    const path = childPath('$.switchboard.servers', id);
    if (!ids.includes(id)) read.fail(path, `no server "${id}" in mcpServers (options must be keyed like mcpServers)`);
    const options = read.record(item, path);
    read.strictKeys(options, OPTION_KEYS, path);
    let tools = { allow: undefined as readonly string[] | undefined, deny: [] as readonly string[] };
    if (options['tools'] !== undefined) {
      const toolsPath = childPath(path, 'tools');
      const filter = read.record(options['tools'], toolsPath);
      read.strictKeys(filter, ['allow', 'deny'], toolsPath);
      const glob = (pattern: string, at: string): string => (pattern === '' ? read.fail(at, 'expected a non-empty glob pattern') : pattern);
      tools = {
        allow: filter['allow'] === undefined ? undefined : read.strings(filter['allow'], childPath(toolsPath, 'allow'), glob),
        deny: filter['deny'] === undefined ? [] : read.strings(filter['deny'], childPath(toolsPath, 'deny'), glob),
      };
    }
    const oauth = options['oauth'] === undefined ? undefined : readOAuth(read, options['oauth'], childPath(path, 'oauth'));
    const labels = readServerLabels(read, options, path);
    out.set(id, {
      oauth: options['oauth'],
      roots: options['roots'],
      value: {
        tools,
        timeoutMs: options['timeoutMs'] === undefined ? CONFIG_DEFAULTS.timeoutMs : read.integer(options['timeoutMs'], 1, 86_400_000, childPath(path, 'timeoutMs')),
        ...(options['startTimeoutMs'] === undefined ? {} : { startTimeoutMs: read.integer(options['startTimeoutMs'], 100, 3_600_000, childPath(path, 'startTimeoutMs')) }),
        maxConcurrency: options['maxConcurrency'] === undefined ? CONFIG_DEFAULTS.maxConcurrency : read.integer(options['maxConcurrency'], 1, 1024, childPath(path, 'maxConcurrency')),
        era: options['era'] === undefined ? CONFIG_DEFAULTS.era : read.choice<ServerEra>(options['era'], ['auto', 'stateless', 'stateful'], childPath(path, 'era')),
        oauth,
        ...(options['auth'] === undefined ? {} : { auth: readServerAuth(read, options['auth'], childPath(path, 'auth'), env) }),
        ...(options['tenant'] === undefined ? {} : { tenant: readServerTenant(read, options['tenant'], childPath(path, 'tenant')) }),
        roots: options['roots'] === undefined ? [] : readRoots(read, options['roots'], childPath(path, 'roots'), folder),
        ...(options['scan'] === undefined ? {} : { scan: read.choice<ScanMode>(options['scan'], ['block', 'warn', 'off'], childPath(path, 'scan')) }),
        ...(options['checkArguments'] === undefined ? {} : { checkArguments: read.boolean(options['checkArguments'], childPath(path, 'checkArguments')) }),
        ...(options['egressAllow'] === undefined ? {} : { egressAllow: readEgressAllow(read, options['egressAllow'], childPath(path, 'egressAllow')) }),
        ...(options['commandTools'] === undefined ? {} : { commandTools: read.strings(options['commandTools'], childPath(path, 'commandTools'), (p, at) => (p === '' ? read.fail(at, 'expected a non-empty glob pattern') : p)) }),
        signature: options['signature'] === undefined ? 'warn' : read.choice<SignaturePolicy>(options['signature'], ['off', 'warn', 'require'], childPath(path, 'signature')),
        ...(labels !== undefined ? { labels } : {}),
      },
    });
  }
  return out;
}

/** `egressAllow`: hosts, `*.domain`s and address blocks (`argumentUrls.ts`), each checked here. */
function readEgressAllow(read: ConfigReader, value: unknown, path: string): EgressEntry[] {
  const entries: EgressEntry[] = [];
  read.strings(value, path, (spelled, at) => {
    const entry = parseEgressEntry(spelled);
    if (typeof entry === 'string') read.fail(at, entry);
    else entries.push(entry);
    return spelled;
  });
  return entries;
}

/**
 * `roots`: folder paths (relative ones against the config file's folder) or `file://` URIs,
 * each a string or `{ "uri"|"path": …, "name"?: … }`; kept as `file://` URIs.
 * See https://modelcontextprotocol.io/specification/2025-11-25/client/roots
 */
function readRoots(read: ConfigReader, value: unknown, path: string, folder: string): ConfiguredRoot[] {
  if (!Array.isArray(value)) read.fail(path, `expected an array of folder paths or file:// URIs, got ${JSON.stringify(value)}`);
  return value.map((item: unknown, i) => {
    const at = `${path}[${i}]`;
    const toUri = (text: string, where: string): string => {
      if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(text)) {
        if (!text.startsWith('file://')) read.fail(where, `a root must be a file:// URI or a folder path, got ${JSON.stringify(text)}`);
        return text;
      }
      return pathToFileUri(resolvePath(folder, text));
    };
    if (typeof item === 'string') return { uri: toUri(read.string(item, at, true), at) };
    const entry = read.record(item, at);
    read.strictKeys(entry, ['uri', 'path', 'name'], at);
    const target = entry['uri'] ?? entry['path'];
    if (target === undefined || (entry['uri'] !== undefined && entry['path'] !== undefined)) read.fail(at, 'expected exactly one of "uri" and "path"');
    const key = entry['uri'] !== undefined ? 'uri' : 'path';
    const uri = toUri(read.string(target, childPath(at, key), true), childPath(at, key));
    return entry['name'] === undefined ? { uri } : { uri, name: read.string(entry['name'], childPath(at, 'name'), true) };
  });
}

/** `switchboard.trustedKeys`: `[{ "name"?, "jwk": { kty, crv, x[, y] }, "servers"?: [ids] }]` (public keys only). */
function readTrustedKeys(read: ConfigReader, value: unknown, ids: readonly string[]): TrustedKey[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return read.fail('$.switchboard.trustedKeys', 'expected an array of { "jwk": {...}, "name"?, "servers"? }');
  return value.map((item, i) => {
    const path = `$.switchboard.trustedKeys[${i}]`;
    const entry = read.record(item, path);
    read.strictKeys(entry, ['name', 'jwk', 'servers'], path);
    const jwk = read.record(entry['jwk'], childPath(path, 'jwk'));
    const okp = jwk['kty'] === 'OKP' && jwk['crv'] === 'Ed25519' && typeof jwk['x'] === 'string';
    const ec = jwk['kty'] === 'EC' && jwk['crv'] === 'P-256' && typeof jwk['x'] === 'string' && typeof jwk['y'] === 'string';
    if (!okp && !ec) read.fail(childPath(path, 'jwk'), 'expected a public Ed25519 (kty OKP) or P-256 (kty EC) JWK');
    if ('d' in jwk) read.fail(childPath(path, 'jwk'), 'this is a private key: put only the public JWK in the config');
    const servers = entry['servers'] === undefined ? undefined : read.strings(entry['servers'], childPath(path, 'servers'));
    for (const [j, id] of (servers ?? []).entries()) if (!ids.includes(id)) read.fail(`${childPath(path, 'servers')}[${j}]`, `no server "${id}" in mcpServers`);
    return {
      ...(entry['name'] !== undefined ? { name: read.string(entry['name'], childPath(path, 'name')) } : {}),
      jwk: (okp ? { kty: 'OKP', crv: 'Ed25519', x: jwk['x'] } : { kty: 'EC', crv: 'P-256', x: jwk['x'], y: jwk['y'] }) as TrustedKey['jwk'],
      ...(servers !== undefined ? { servers } : {}),
    };
  });
}

function readOAuth(read: ConfigReader, value: unknown, path: string): ServerOAuthOptions {
  const oauth = read.record(value, path);
  read.strictKeys(oauth, ['clientId', 'scopes', 'redirectPort'], path);
  return {
    clientId: oauth['clientId'] === undefined ? undefined : read.string(oauth['clientId'], childPath(path, 'clientId'), true),
    scopes: oauth['scopes'] === undefined ? undefined : read.strings(oauth['scopes'], childPath(path, 'scopes')),
    redirectPort: oauth['redirectPort'] === undefined ? undefined : read.integer(oauth['redirectPort'], 1, 65535, childPath(path, 'redirectPort')),
  };
}

/**
 * `switchboard.audit`: `true` / `false`, or `{ "durability": "sync" | "batch", "syncIntervalMs": n, "retention": {...} }`
 * (the log on; `syncIntervalMs`, 0 to 60000, only with `batch`; `retention`: see `configRetention.ts`).
 */
function readAudit(read: ConfigReader, value: unknown, folder: string, stateDir: string): Pick<HostConfig, 'audit' | 'auditDurability' | 'auditSyncIntervalMs' | 'auditRetention'> {
  if (value === undefined) return { audit: true, auditDurability: 'sync' };
  if (typeof value === 'boolean') return { audit: value, auditDurability: 'sync' };
  const raw = read.record(value, '$.switchboard.audit');
  read.strictKeys(raw, ['durability', 'syncIntervalMs', 'retention'], '$.switchboard.audit');
  const durability = raw['durability'] === undefined ? 'sync' : read.choice<AuditDurability>(raw['durability'], ['sync', 'batch'], '$.switchboard.audit.durability');
  const retention = readAuditRetention(read, raw['retention'], folder, stateDir);
  const options = { audit: true, auditDurability: durability, ...(retention !== undefined ? { auditRetention: retention } : {}) };
  if (raw['syncIntervalMs'] === undefined) return options;
  const path = '$.switchboard.audit.syncIntervalMs';
  if (durability !== 'batch') read.fail(path, 'applies only with "durability": "batch" (with "sync" every answer waits for its own sync)');
  return { ...options, auditSyncIntervalMs: read.integer(raw['syncIntervalMs'], 0, 60_000, path) };
}

function readSeparator(read: ConfigReader, value: unknown): string {
  const separator = read.string(value, '$.switchboard.separator');
  if (!SEPARATOR_PATTERN.test(separator)) read.fail('$.switchboard.separator', `expected 1 to 4 of the characters _ . - /, got ${JSON.stringify(separator)}`);
  return separator;
}

function readGateway(read: ConfigReader, value: unknown, env: Readonly<Record<string, string | undefined>>): GatewayConfig {
  const defaults = CONFIG_DEFAULTS.gateway;
  if (value === undefined) return { ...defaults, auth: { kind: 'token' }, limits: DEFAULT_GATEWAY_LIMITS };
  const gateway = read.record(value, '$.switchboard.gateway');
  read.strictKeys(gateway, GATEWAY_KEYS, '$.switchboard.gateway');
  const host = gateway['host'] === undefined ? defaults.host : read.string(gateway['host'], '$.switchboard.gateway.host', true);
  const port = gateway['port'] === undefined ? defaults.port : read.integer(gateway['port'], 0, 65535, '$.switchboard.gateway.port');
  const path = gateway['path'] === undefined ? defaults.path : read.string(gateway['path'], '$.switchboard.gateway.path');
  if (!path.startsWith('/')) read.fail('$.switchboard.gateway.path', `expected a path starting with "/", got ${JSON.stringify(path)}`);
  const auth = readGatewayAuth(read, gateway['auth'], env);
  if (auth.kind === 'none' && !LOOPBACK.has(host)) {
    read.fail('$.switchboard.gateway.auth', `auth "none" is allowed only on a loopback host (127.0.0.1, ::1, localhost), but host is ${JSON.stringify(host)}`);
  }
  const publicUrl = gateway['publicUrl'] === undefined ? undefined : readPublicUrl(read, gateway['publicUrl'], '$.switchboard.gateway.publicUrl');
  return { host, port, path, ...(publicUrl !== undefined ? { publicUrl } : {}), auth, limits: readGatewayLimits(read, gateway['limits']) };
}

/**
 * `gateway.publicUrl`: the origin clients and browsers reach the gateway at (behind a reverse
 * proxy), as `https://host[:port]` (plain http only on a loopback host); no credentials, path,
 * query or fragment. Returned as the origin.
 */
function readPublicUrl(read: ConfigReader, value: unknown, at: string): string {
  const text = read.string(value, at, true);
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (url === undefined || (url.protocol !== 'https:' && !isLoopbackHttp(text))) read.fail(at, `expected an absolute https: URL (http: only on a loopback host), got ${JSON.stringify(text)}`);
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '' || text.includes('?') || text.includes('#')) read.fail(at, `expected an origin without credentials, query or fragment, got ${JSON.stringify(text)}`);
  if (url.pathname !== '/') read.fail(at, `expected an origin without a path (a path prefix behind the proxy is not supported), got ${JSON.stringify(text)}`);
  return url.origin;
}

function readGatewayAuth(read: ConfigReader, value: unknown, env: Readonly<Record<string, string | undefined>>): GatewayAuth {
  const path = '$.switchboard.gateway.auth';
  if (value === undefined || value === 'token') return { kind: 'token' };
  if (value === 'none') return { kind: 'none' };
  if (typeof value === 'string') read.fail(path, `expected "token", "none" or { "tokens"?: [ … ], "oauth"?: { … } }, got ${JSON.stringify(value)}`);
  const auth = read.record(value, path);
  read.strictKeys(auth, ['tokens', 'oauth'], path);
  const tokens = auth['tokens'] === undefined ? undefined : readGatewayTokens(read, auth['tokens'], `${path}.tokens`, env);
  if (auth['oauth'] === undefined) {
    if (tokens === undefined) read.fail(path, 'expected "tokens", "oauth" or both');
    return { kind: 'token', tokens };
  }
  const oauthPath = `${path}.oauth`;
  const oauth = read.record(auth['oauth'], oauthPath);
  read.strictKeys(oauth, ['issuer', 'audience', 'jwksUri', 'dpop', 'tenantClaim', 'console'], oauthPath);
  const consoleClient = oauth['console'] === undefined ? undefined : readConsoleClient(read, oauth['console'], `${oauthPath}.console`, env);
  const httpsUrl = (item: unknown, at: string): string => {
    const url = read.string(item, at, true);
    // Plain http only to this machine (a development authorization server).
    if (!URL.canParse(url) || (new URL(url).protocol !== 'https:' && !isLoopbackHttp(url))) read.fail(at, `expected an https: URL (http: only on a loopback host), got ${JSON.stringify(url)}`);
    return url;
  };
  return {
    kind: 'oauth',
    issuer: httpsUrl(oauth['issuer'], `${oauthPath}.issuer`),
    audience: read.string(oauth['audience'], `${oauthPath}.audience`, true),
    jwksUri: oauth['jwksUri'] === undefined ? undefined : httpsUrl(oauth['jwksUri'], `${oauthPath}.jwksUri`),
    dpop: readGatewayDpop(read, oauth['dpop'], `${oauthPath}.dpop`),
    ...(oauth['tenantClaim'] !== undefined ? { tenantClaim: read.string(oauth['tenantClaim'], `${oauthPath}.tenantClaim`, true) } : {}),
    ...(consoleClient !== undefined ? { console: consoleClient } : {}),
    ...(tokens !== undefined ? { tokens } : {}),
  };
}

function readGatewayDpop(read: ConfigReader, value: unknown, path: string): GatewayDpopConfig | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) return { required: false, nonce: false };
  const dpop = read.record(value, path);
  read.strictKeys(dpop, ['required', 'nonce'], path);
  const flag = (key: string): boolean => (dpop[key] === undefined ? false : read.boolean(dpop[key], childPath(path, key)));
  return { required: flag('required'), nonce: flag('nonce') };
}

function readApprovals(read: ConfigReader, value: unknown, ids: readonly string[], warnings: string[]): Readonly<Record<string, string>> {
  if (value === undefined) return {};
  const approvals = read.stringRecord(
    value,
    '$.switchboard.approvedLaunches',
    (id, at) => {
      if (!SERVER_ID_PATTERN.test(id)) read.fail(at, `server id "${id}" must match ^[A-Za-z0-9_-]{1,32}$`);
      if (!ids.includes(id)) warnings.push(`${read.file}: ${at}: approval for "${id}", which is not in mcpServers, ignored`);
    },
    (digest, at) => (LAUNCH_DIGEST_PATTERN.test(digest) ? digest : read.fail(at, `expected "sha256:" and 64 lowercase hex digits, got ${JSON.stringify(digest)}`)),
  );
  // A config file cannot approve its own launches (whoever can write it could): see launchKeys.ts.
  warnings.push(`${read.file}: $.switchboard.approvedLaunches: ignored, a config file cannot approve its own launches (answer the gateway's prompt, run it once with --yes, or approve on the console's Review page)`);
  return approvals;
}

/** True when `error` is a {@link ConfigError}. */
export function isConfigError(error: unknown): error is ConfigError {
  return error instanceof ConfigError;
}
