/**
 * `switchboard.servers.<id>.auth` and `switchboard.servers.<id>.tenant`: whose authority a
 * call to a remote server carries (see `connections.ts`), and which tenant's principals may
 * see and call the server.
 *
 * - `"shared"` (the default, the same as leaving it out): the server's one sign-in
 *   (`switchboard login <id>`, the `oauth` section) for every caller.
 * - `"per-user"`: each principal signs in once (a URL-mode elicitation); its tokens go only on
 *   its own calls.
 * - `{ "mode": "token-exchange", "issuer" | "tokenEndpoint", "clientId", "clientSecret"?,
 *   "scopes"?, "toolScopes"? }`: RFC 8693 (https://www.rfc-editor.org/rfc/rfc8693) at that
 *   authorization server. `clientSecret` only as a `${env:NAME}` reference: a literal secret in
 *   the file is refused. `toolScopes` maps a tool (the server's own name) to the scopes its calls
 *   are exchanged for; any other request asks for `scopes`. Each scope is a `scope-token` of
 *   RFC 6749 section 3.3 (https://www.rfc-editor.org/rfc/rfc6749#section-3.3).
 *
 * Remote servers only: a stdio server has no authorization.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/security_best_practices#token-passthrough
 * @module
 */
import { isLoopbackHttp } from './canonicalServerUrl.js';
import { expandEnv } from './configEnv.js';
import type { ConfigReader } from './configRead.js';
import { childPath, type ConsoleOAuthClient, type ServerAuth } from './configTypes.js';

const SECRET_REFERENCE = /^\$\{env:[A-Za-z_][A-Za-z0-9_]*\}$/;
/** RFC 6749 section 3.3: `scope-token = 1*( %x21 / %x23-5B / %x5D-7E )`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** Reads `auth` of one server's options; `env` expands the client secret's reference. */
export function readServerAuth(read: ConfigReader, value: unknown, path: string, env: Readonly<Record<string, string | undefined>>): ServerAuth {
  if (typeof value === 'string') {
    const mode = read.choice(value, ['shared', 'per-user'] as const, path);
    return { mode };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    read.fail(path, `expected "shared", "per-user" or { "mode": "token-exchange", … }, got ${JSON.stringify(value)}`);
  }
  const auth = read.record(value, path);
  read.strictKeys(auth, ['mode', 'issuer', 'tokenEndpoint', 'clientId', 'clientSecret', 'scopes', 'toolScopes'], path);
  if (auth['mode'] !== 'token-exchange') read.fail(childPath(path, 'mode'), `expected "token-exchange" (write "shared" or "per-user" as a plain string), got ${JSON.stringify(auth['mode'])}`);
  const url = (item: unknown, at: string): string => {
    const text = read.string(item, at, true);
    if (!URL.canParse(text) || (new URL(text).protocol !== 'https:' && !isLoopbackHttp(text))) read.fail(at, `expected an https: URL (http: only on a loopback host), got ${JSON.stringify(text)}`);
    return text;
  };
  const hasIssuer = auth['issuer'] !== undefined;
  const hasEndpoint = auth['tokenEndpoint'] !== undefined;
  if (hasIssuer === hasEndpoint) read.fail(path, 'token-exchange needs exactly one of "issuer" (its token endpoint from the metadata) and "tokenEndpoint"');
  const clientSecret = readClientSecret(read, auth['clientSecret'], childPath(path, 'clientSecret'), env);
  return {
    mode: 'token-exchange',
    ...(hasIssuer ? { issuer: url(auth['issuer'], childPath(path, 'issuer')) } : { tokenEndpoint: url(auth['tokenEndpoint'], childPath(path, 'tokenEndpoint')) }),
    clientId: read.string(auth['clientId'], childPath(path, 'clientId'), true),
    ...(clientSecret !== undefined ? { clientSecret } : {}),
    ...(auth['scopes'] !== undefined ? { scopes: readScopes(read, auth['scopes'], childPath(path, 'scopes')) } : {}),
    ...(auth['toolScopes'] !== undefined ? { toolScopes: readToolScopes(read, auth['toolScopes'], childPath(path, 'toolScopes')) } : {}),
  };
}

/** A list of scopes, each an RFC 6749 `scope-token` (no space, quote or backslash). */
function readScopes(read: ConfigReader, value: unknown, at: string): string[] {
  return read.strings(value, at, (s, p) => (SCOPE_TOKEN.test(s) ? s : read.fail(p, `expected a scope token (RFC 6749 section 3.3: printable ASCII without space, " or \\), got ${JSON.stringify(s)}`)));
}

/** `toolScopes`: a tool's own name to the scopes its calls need (at least one each). */
function readToolScopes(read: ConfigReader, value: unknown, at: string): Readonly<Record<string, readonly string[]>> {
  const entries = Object.entries(read.record(value, at)).map(([tool, scopes]): [string, readonly string[]] => {
    const p = childPath(at, tool);
    if (tool === '') read.fail(p, 'expected a tool name (the server\'s own), got ""');
    const list = readScopes(read, scopes, p);
    if (list.length === 0) read.fail(p, 'expected at least one scope (a tool not listed gets "scopes")');
    return [tool, list];
  });
  // fromEntries defines own properties: a tool named "__proto__" stays a tool.
  return Object.fromEntries(entries);
}

/** A client secret: only a `${env:NAME}` reference, expanded; undefined when absent. */
function readClientSecret(read: ConfigReader, value: unknown, at: string, env: Readonly<Record<string, string | undefined>>): string | undefined {
  if (value === undefined) return undefined;
  const raw = read.string(value, at, true);
  if (!SECRET_REFERENCE.test(raw)) read.fail(at, 'expected a ${env:NAME} reference: a client secret is never written in the file');
  const secret = expandEnv(raw, { file: read.file, path: at, env });
  if (secret === '') read.fail(at, `${raw} is empty`);
  return secret;
}

/**
 * Reads `gateway.auth.oauth.console`: the console's OAuth client at the inbound authorization
 * server ("Sign in with <issuer>"): `clientId`, `clientSecret` (a `${env:NAME}` reference only)
 * and `scopes`; `true` (or `{}`) is a client registered dynamically.
 */
export function readConsoleClient(read: ConfigReader, value: unknown, path: string, env: Readonly<Record<string, string | undefined>>): ConsoleOAuthClient | undefined {
  if (value === false) return undefined;
  if (value === true) return {};
  const entry = read.record(value, path);
  read.strictKeys(entry, ['clientId', 'clientSecret', 'scopes'], path);
  const clientSecret = readClientSecret(read, entry['clientSecret'], childPath(path, 'clientSecret'), env);
  if (clientSecret !== undefined && entry['clientId'] === undefined) read.fail(childPath(path, 'clientSecret'), 'a client secret needs its "clientId"');
  return {
    ...(entry['clientId'] !== undefined ? { clientId: read.string(entry['clientId'], childPath(path, 'clientId'), true) } : {}),
    ...(clientSecret !== undefined ? { clientSecret } : {}),
    ...(entry['scopes'] !== undefined ? { scopes: readScopes(read, entry['scopes'], childPath(path, 'scopes')) } : {}),
  };
}

/** Reads `tenant` of one server's options: 1 to 128 characters. */
export function readServerTenant(read: ConfigReader, value: unknown, path: string): string {
  const tenant = read.string(value, path, true);
  if (tenant.length > 128) read.fail(path, 'expected at most 128 characters');
  return tenant;
}

/** The mode of a server's `auth` (absent = `shared`). */
export function authModeOf(auth: ServerAuth | undefined): ServerAuth['mode'] {
  return auth?.mode ?? 'shared';
}
