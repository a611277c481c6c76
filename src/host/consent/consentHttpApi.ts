/**
 * The consent HTTP API, served under `/consent/` on the gateway's HTTP port: the person's
 * side, never the agent's.
 *
 * | method and path | does |
 * |---|---|
 * | `GET /consent/requests` | the waiting requests, in full |
 * | `GET /consent/requests/{id}` | one of them |
 * | `POST /consent/requests/{id}/approve` | approves; body `{ "scope"?: GrantScope }` (default: this call, once) |
 * | `POST /consent/requests/{id}/deny` | denies; body `{ "reason"?: string }` |
 * | `GET /consent/events` | server-sent events: `request` (a new one, in full), `answered`, `closed` |
 * | `GET /consent/grants` | the kept approvals |
 * | `DELETE /consent/grants/{id}` | revokes one |
 * | `POST /consent/webhook` | a webhook's later answer, signed (no admin token: the signature is the credential) |
 *
 * Access needs the ADMIN token (`Authorization: Bearer <admin token>`), a per-install secret
 * kept apart from the MCP bearer token: the MCP token (the agent's credential) is refused
 * with 403 even where it would otherwise be the only credential. It is mounted behind the
 * front door (`frontDoor.ts`), whose Host/Origin policy every request passes first; then
 * every state-changing request (anything but GET/HEAD) is refused with 403 when its `Origin`
 * is not the gateway's own or `Sec-Fetch-Site` says `cross-site` (`sameOrigin.ts`), before
 * authentication and routing.
 *
 * @module
 */
import { timingSafeEqual } from '../../auth/http.js';
import { encodeSseComment, encodeSseEvent } from '../../transport/http/sse.js';
import { readBody } from '../../transport/http/server/exchange.js';
import { PushSseStream } from '../../transport/http/server/sseStream.js';
import type { HttpRequestLike, HttpResponseLike } from '../../transport/http/server/types.js';
import { describeError } from '../../util/errors.js';
import { crossOriginChange } from '../sameOrigin.js';
import { parseScope, parseWebhookAnswer } from './consentAnswers.js';
import type { ConsentGrantStore } from './consentGrants.js';
import type { ConsentQueue, ConsentQueueEvent } from './consentQueue.js';
import type { ConsentAnswer } from './consentTypes.js';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, type WebhookSigner } from './webhookSignature.js';

/** The path prefix of the API. */
export const CONSENT_API_PREFIX = '/consent/';

/** Options of {@link ConsentHttpApi}. */
export interface ConsentHttpApiOptions {
  readonly queue: ConsentQueue;
  readonly grants: ConsentGrantStore;
  /** The admin token (at least 32 characters). */
  readonly adminToken: string;
  /** The MCP bearer token, when there is one: refused here by name. */
  readonly mcpToken?: string;
  /** Verifies `POST /consent/webhook`; without it that path is 404. */
  readonly webhook?: WebhookSigner;
  /** Who approvals through this API are recorded as. Default `admin-token`. */
  readonly approver?: string;
  /** The clock (tests). Default `Date.now`. */
  readonly now?: () => number;
  /** Keep-alive comment interval of the event stream. Default 15 s. */
  readonly keepAliveMs?: number;
}

const MAX_BODY = 64 * 1024;

/** The API as a request handler; {@link handle} answers `undefined` outside `/consent/`. */
export class ConsentHttpApi {
  readonly #o: ConsentHttpApiOptions;
  readonly #now: () => number;
  readonly #streams = new Set<() => void>();

  constructor(options: ConsentHttpApiOptions) {
    if (options.adminToken.length < 32) throw new TypeError('the consent admin token needs at least 32 characters');
    if (options.mcpToken !== undefined && options.mcpToken === options.adminToken) throw new TypeError('the admin token must differ from the MCP bearer token');
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  /** True for a path this API serves. */
  static owns(path: string): boolean {
    return path.startsWith(CONSENT_API_PREFIX) || path === '/consent';
  }

  /** The same test on an instance (a mount of the front door). */
  owns(path: string): boolean {
    return ConsentHttpApi.owns(path);
  }

  /** Ends every open event stream. */
  close(): void {
    for (const end of [...this.#streams]) end();
  }

  /** Answers a request under `/consent/`; undefined for any other path. */
  async handle(request: HttpRequestLike): Promise<HttpResponseLike | undefined> {
    if (!ConsentHttpApi.owns(request.path)) return undefined;
    const crossOrigin = crossOriginChange(request, false);
    if (crossOrigin !== undefined) return json(403, { error: crossOrigin });
    const parts = request.path.slice(CONSENT_API_PREFIX.length).split('/');
    if (request.path === '/consent/webhook') return request.method === 'POST' ? this.#webhookAnswer(request) : json(405, { error: 'POST only' });
    const refused = this.#refused(request);
    if (refused !== undefined) return refused;
    try {
      if (parts[0] === 'requests' && parts.length === 1 && request.method === 'GET') return json(200, { requests: this.#o.queue.pending() });
      if (parts[0] === 'requests' && parts.length === 2 && request.method === 'GET') {
        const found = this.#o.queue.get(decodeURIComponent(parts[1] as string));
        return found === undefined ? json(404, { error: 'no such request is waiting' }) : json(200, found);
      }
      if (parts[0] === 'requests' && parts.length === 3 && request.method === 'POST') return await this.#answer(request, decodeURIComponent(parts[1] as string), parts[2] as string);
      if (parts[0] === 'events' && parts.length === 1 && request.method === 'GET') return this.#events(request);
      if (parts[0] === 'grants' && parts.length === 1 && request.method === 'GET') return json(200, { grants: await this.#o.grants.list(this.#now()) });
      if (parts[0] === 'grants' && parts.length === 2 && request.method === 'DELETE') {
        return (await this.#o.grants.revoke(decodeURIComponent(parts[1] as string))) ? json(200, { revoked: parts[1] }) : json(404, { error: 'no such grant' });
      }
    } catch (error) {
      return json(400, { error: describeError(error) });
    }
    return json(404, { error: 'unknown consent API path or method' });
  }


  /** 401/403 unless the admin token is presented. */
  #refused(request: HttpRequestLike): HttpResponseLike | undefined {
    const header = request.header('authorization')?.trim() ?? '';
    const token = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
    if (token !== undefined && timingSafeEqual(token, this.#o.adminToken)) return undefined;
    if (token !== undefined && this.#o.mcpToken !== undefined && timingSafeEqual(token, this.#o.mcpToken)) {
      return json(403, { error: "the MCP bearer token is the agent's credential and cannot read or answer consent requests; use the admin token" });
    }
    return {
      status: 401,
      headers: { 'content-type': 'application/json', 'cache-control': 'no-store', 'www-authenticate': `Bearer realm="switchboard-admin"${token === undefined ? '' : ', error="invalid_token"'}` },
      body: JSON.stringify({ error: 'the admin token is required (the admin-token file in the state folder)' }),
    };
  }

  async #answer(request: HttpRequestLike, id: string, verb: string): Promise<HttpResponseLike> {
    if (verb !== 'approve' && verb !== 'deny') return json(404, { error: 'use approve or deny' });
    const body = await bodyJson(request);
    const approver = this.#o.approver ?? 'admin-token';
    const refused = this.#o.queue.refusal(id);
    if (refused !== undefined) return json(refused.status, { error: refused.error });
    if (verb === 'approve') {
      const scope = parseScope(body['scope']);
      return (await this.#record(id, { approved: true, scope, approver, mediated: 'person' })) ?? json(200, { id, approved: true, scope });
    }
    const reason = typeof body['reason'] === 'string' && body['reason'] !== '' ? body['reason'] : 'denied by a person';
    return (await this.#record(id, { approved: false, reason, approver, mediated: 'person' })) ?? json(200, { id, approved: false, reason });
  }

  /** Gives the queue an answer; the error response when it was not applied (`ConsentQueue.tryAnswer`), else undefined. */
  async #record(id: string, answer: ConsentAnswer): Promise<HttpResponseLike | undefined> {
    const refused = await this.#o.queue.tryAnswer(id, answer);
    return refused === undefined ? undefined : json(refused.status, { error: refused.error });
  }

  async #webhookAnswer(request: HttpRequestLike): Promise<HttpResponseLike> {
    const signer = this.#o.webhook;
    if (signer === undefined) return json(404, { error: 'no webhook is configured' });
    const bytes = await readBody(request.body, MAX_BODY);
    if (bytes === undefined) return json(413, { error: 'body too large' });
    const text = new TextDecoder().decode(bytes);
    const problem = await signer.verify(text, request.header(TIMESTAMP_HEADER), request.header(SIGNATURE_HEADER));
    if (problem !== undefined) return json(401, { error: `signed answer refused: ${problem}` });
    let id: unknown;
    try {
      id = (JSON.parse(text) as { id?: unknown }).id;
    } catch {
      return json(400, { error: 'the answer is not JSON' });
    }
    const refused = typeof id === 'string' ? this.#o.queue.refusal(id) : { status: 404 as const, error: '' };
    if (typeof id !== 'string' || refused !== undefined) {
      return json(refused?.status ?? 404, { error: refused?.status === 410 ? refused.error : 'no such request is waiting (answered, timed out, or unknown): a late answer is not applied' });
    }
    try {
      const answer = parseWebhookAnswer(text, id);
      if (answer === 'pending') return json(202, { id, pending: true });
      return (await this.#record(id, answer)) ?? json(200, { id, approved: answer.approved });
    } catch (error) {
      return json(400, { error: describeError(error) });
    }
  }

  #events(request: HttpRequestLike): HttpResponseLike {
    let unsubscribe = (): void => undefined;
    let timer: ReturnType<typeof setInterval> | undefined = undefined;
    const end = (): void => {
      unsubscribe();
      clearInterval(timer);
      this.#streams.delete(close);
    };
    const stream = new PushSseStream(end);
    const close = (): void => {
      end();
      stream.close();
    };
    const send = (event: ConsentQueueEvent): void => stream.write(encodeSseEvent({ event: event.type, data: JSON.stringify(event.type === 'request' ? event.request : event) }));
    for (const pending of this.#o.queue.pending()) send({ type: 'request', request: pending });
    unsubscribe = this.#o.queue.subscribe(send);
    timer = setInterval(() => stream.write(encodeSseComment('keep-alive')), this.#o.keepAliveMs ?? 15_000);
    (timer as { unref?: () => void }).unref?.();
    this.#streams.add(close);
    request.onAbort?.(() => stream.cancel());
    return { status: 200, headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-store', 'x-accel-buffering': 'no' }, body: stream };
  }
}

async function bodyJson(request: HttpRequestLike): Promise<Record<string, unknown>> {
  const bytes = await readBody(request.body, MAX_BODY);
  if (bytes === undefined) throw new Error('body too large');
  if (bytes.byteLength === 0) return {};
  const value: unknown = JSON.parse(new TextDecoder().decode(bytes));
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('the body must be a JSON object');
  return value as Record<string, unknown>;
}

function json(status: number, body: unknown): HttpResponseLike {
  return { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' }, body: JSON.stringify(body) };
}
