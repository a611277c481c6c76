/**
 * What a client command prints when it fails: one sentence that says what happened and, where
 * the cause is a common mistake, what to do about it (add `--oauth` on a 401, `--legacy-sse`
 * on a 405 from an `/sse` URL, the server's own reason on a 403, a scheme for `host:port`).
 *
 * The HTTP status reaches us as an `ERR_MCP_HTTP_STATUS` `McpError` somewhere in the
 * error's cause chain, with the status, the start of the body and `WWW-Authenticate`.
 *
 * @module
 */
import { McpErrorCode } from '../util/errors.js';
import { CliFailure, type ParsedArgs } from './args.js';

/** What the explanation needs to know about the command line. */
export interface FailureContext {
  /** The server URL, for HTTP servers. */
  readonly url?: string;
  /** The stdio command, for spawned servers. */
  readonly command?: string;
  readonly options: ParsedArgs['options'];
}

/** Where a gateway started on `./switchboard.json` keeps its bearer token. */
const GATEWAY_TOKEN_DEFAULT = '.switchboard/gateway-token';

/** The status details an HTTP failure carries. */
interface HttpStatusCause {
  readonly status: number;
  readonly body: string;
  readonly wwwAuthenticate?: string;
}

/** The first error with `code` (`ERR_MCP_*`, or a Node errno code like `ECONNREFUSED`) in the cause chain of `error`. */
function findCode(error: unknown, code: string): Error | undefined {
  let node: unknown = error;
  for (let depth = 0; depth < 8 && node instanceof Error; depth++) {
    if ((node as { code?: unknown }).code === code) return node;
    node = node.cause;
  }
  return undefined;
}

/** The server's own reason in a JSON-RPC error body (`error.message`), or the body's first line. */
export function serverReason(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown }; error_description?: unknown };
    const message = parsed.error?.message ?? parsed.error_description;
    if (typeof message === 'string' && message.trim() !== '') return message.trim().replace(/^Invalid request: /, '');
  } catch {
    // Not JSON: fall back to the text.
  }
  const line = body.trim().split('\n')[0]?.trim() ?? '';
  return line === '' ? undefined : line.slice(0, 200);
}

/** True for a path that ends like the legacy HTTP+SSE endpoint (`.../sse`). */
function looksLikeSsePath(url: string): boolean {
  try {
    return /\/sse\/?$/i.test(new URL(url).pathname);
  } catch {
    return false;
  }
}

/** The sentence for an HTTP status failure. */
function explainStatus(cause: HttpStatusCause, context: FailureContext): string {
  const where = context.url === undefined ? 'the server' : context.url;
  const reason = serverReason(cause.body);
  switch (cause.status) {
    case 401:
      if (context.options['oauth'] === true) return `${where} still refuses the request after authorization (HTTP 401)${reason === undefined ? '' : `: ${reason}`}`;
      // OAuth only when the server points at its protected resource metadata (RFC 9728 §5.1); otherwise it wants a token it issued.
      if (/resource_metadata\s*=/i.test(cause.wwwAuthenticate ?? '')) return `${where} requires authorization (HTTP 401): add --oauth to sign in`;
      return `${where} requires a bearer token (HTTP 401)${reason === undefined ? '' : `: ${reason}`}. Add --header "Authorization: Bearer <token>"${
        /gateway-token/.test(reason ?? '') ? `; a Switchboard gateway's token is in the gateway-token file of its state folder (by default ${GATEWAY_TOKEN_DEFAULT}): --header "Authorization: Bearer $(cat ${GATEWAY_TOKEN_DEFAULT})"` : ''
      }`;
    case 403: {
      const hint = /Host header/i.test(reason ?? '')
        ? ' (the server must list this host name, e.g. switchboard everything --allowed-host <name>)'
        : /Origin header/i.test(reason ?? '')
          ? ' (the server must list this origin, e.g. switchboard everything --allowed-origin <origin>)'
          : '';
      return `${where} refused the request (HTTP 403): ${reason ?? 'no reason given'}${hint}`;
    }
    case 404:
      return `${where} has no MCP endpoint there (HTTP 404): check the path (often /mcp)`;
    case 405:
      if (looksLikeSsePath(context.url ?? '') && context.options['legacy-sse'] !== true) {
        return `${where} does not accept POST (HTTP 405): it looks like a legacy HTTP+SSE endpoint; add --legacy-sse`;
      }
      return `${where} does not accept this request (HTTP 405)${reason === undefined ? '' : `: ${reason}`}`;
    default:
      return `${where} answered HTTP ${cause.status}${reason === undefined ? '' : `: ${reason}`}`;
  }
}

/**
 * The user-facing failure for `error`, or `error` itself when nothing better can be said
 * (then `main` prints its cause chain).
 */
export function explainFailure(error: unknown, context: FailureContext): unknown {
  const status = findCode(error, McpErrorCode.HttpStatus);
  if (status !== undefined) {
    const cause = status.cause as HttpStatusCause | undefined;
    if (cause !== undefined && typeof cause.status === 'number') return new CliFailure(explainStatus(cause, context), { cause: error });
  }
  if (context.url !== undefined && findCode(error, 'ECONNREFUSED') !== undefined) {
    return new CliFailure(`nothing is listening at ${context.url} (connection refused): start the server, or check the host and port`, { cause: error });
  }
  const spawn = findCode(error, McpErrorCode.SpawnFailed);
  if (spawn !== undefined && context.command !== undefined && /ENOENT/.test(String((spawn.cause as Error | undefined)?.message ?? spawn.message))) {
    return new CliFailure(`could not start ${JSON.stringify(context.command)}: no such command (is it installed and on PATH?)`, { cause: error });
  }
  return error;
}

/**
 * When a `<server>` argument looks like a URL without its scheme (`127.0.0.1:3000/mcp`,
 * `localhost:3000`), the URL it most likely means; otherwise undefined.
 */
export function schemelessUrl(server: string): string | undefined {
  if (/\s/.test(server.trim())) return undefined;
  const match = /^(localhost|\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:.]+\]|[a-z0-9-]+(?:\.[a-z0-9-]+)+):(\d{1,5})(\/\S*)?$/i.exec(server.trim());
  if (match === null) return undefined;
  const host = (match[1] as string).toLowerCase();
  const loopback = host === 'localhost' || host.startsWith('127.') || host === '[::1]';
  return `${loopback ? 'http' : 'https'}://${server.trim()}`;
}
