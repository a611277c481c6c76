/**
 * The command line's OAuth user agent: a loopback redirect listener (RFC 8252 section 7.3).
 *
 * The {@link Authorizer} it returns listens on `127.0.0.1:<port>` (only while an authorization
 * is pending), prints the authorization URL for the user to open (it never runs a shell or a
 * browser itself: a URL handed to a shell is a command-injection risk), waits for the
 * authorization server to redirect the browser to `/callback`, answers the browser with a
 * short page and resolves with the response parameters (validated by the OAuth provider).
 *
 * @module
 */
import { createServer, type Server } from 'node:http';
import { parseAuthorizationResponse, type AuthorizationResponse, type Authorizer } from '../auth/client/authorization.js';

/** The default loopback port: fixed, so a registered redirect URI stays valid between runs. */
export const DEFAULT_REDIRECT_PORT = 33418;

/** The callback path on the loopback listener. */
export const CALLBACK_PATH = '/callback';

/** Options of {@link loopbackAuthorizer}. */
export interface LoopbackOptions {
  /** The port to listen on (default {@link DEFAULT_REDIRECT_PORT}). */
  readonly port?: number;
  /** Shows the authorization URL to the user (default: a line on stderr). */
  readonly prompt?: (url: URL) => void;
  /** How long to wait for the redirect (default 300,000 ms). */
  readonly timeoutMs?: number;
}

/** The redirect URI for a loopback listener on `port`. */
export function loopbackRedirectUri(port: number = DEFAULT_REDIRECT_PORT): string {
  return `http://127.0.0.1:${port}${CALLBACK_PATH}`;
}

const PAGE = '<!doctype html><meta charset="utf-8"><title>Switchboard</title><p>Authorization received. You can close this window.</p>\n';

/** An {@link Authorizer} that waits for the redirect on a loopback listener. */
export function loopbackAuthorizer(options: LoopbackOptions = {}): Authorizer {
  const port = options.port ?? DEFAULT_REDIRECT_PORT;
  const prompt = options.prompt ?? ((url: URL) => process.stderr.write(`Open this URL in a browser to authorize:\n\n  ${url.href}\n\nWaiting for the redirect to ${loopbackRedirectUri(port)} ...\n`));
  const timeoutMs = options.timeoutMs ?? 300_000;
  return (url, context) =>
    new Promise<AuthorizationResponse>((resolve, reject) => {
      if (url.protocol !== 'https:' && url.protocol !== 'http:') {
        reject(new Error(`refusing to open a ${url.protocol} authorization URL`));
        return;
      }
      let settled = false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const server: Server = createServer((req, res) => {
        const target = new URL(req.url ?? '/', loopbackRedirectUri(port));
        if (req.method !== 'GET' || target.pathname !== CALLBACK_PATH) {
          res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
          return;
        }
        let response: AuthorizationResponse;
        try {
          response = parseAuthorizationResponse(target);
        } catch (error) {
          res.writeHead(400, { 'content-type': 'text/plain' }).end('invalid authorization response\n');
          finish(() => reject(error));
          return;
        }
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', connection: 'close' }).end(PAGE);
        finish(() => resolve(response));
      });
      const onAbort = (): void => finish(() => reject(context.signal?.reason ?? new Error('authorization aborted')));
      const finish = (settle: () => void): void => {
        if (settled) return;
        settled = true;
        if (timer !== undefined) clearTimeout(timer);
        context.signal?.removeEventListener('abort', onAbort);
        server.close();
        server.closeIdleConnections();
        settle();
      };
      if (context.signal?.aborted === true) {
        onAbort();
        return;
      }
      context.signal?.addEventListener('abort', onAbort, { once: true });
      server.once('error', (error) => finish(() => reject(error)));
      server.listen(port, '127.0.0.1', () => {
        timer = setTimeout(() => finish(() => reject(new Error(`no authorization redirect within ${timeoutMs} ms`))), timeoutMs);
        prompt(url);
      });
    });
}
