import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConsentHttpApi } from '../../../../src/host/consent/consentHttpApi.js';
import { ConsentQueue } from '../../../../src/host/consent/consentQueue.js';
import type { ConsentRequest } from '../../../../src/host/consent/consentTypes.js';
import { webhookProvider } from '../../../../src/host/consent/webhookProvider.js';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, WebhookSigner } from '../../../../src/host/consent/webhookSignature.js';
import { DeniedError } from '../../../../src/host/interceptors.js';
import { consentWorld } from './consentWorld.js';

const SECRET = 'webhook-secret-0123456789';
const denied = (pattern: RegExp) => (e: unknown): boolean => e instanceof DeniedError && pattern.test(e.message);

interface Received {
  readonly body: string;
  readonly headers: Headers;
  readonly request: ConsentRequest;
}

/** A webhook receiver in-process: `respond` builds its answer to each POST. */
function setup(respond: (got: Received, sign: (body: string) => Promise<Record<string, string>>) => Promise<Response>, options: { timeoutMs?: number; webhookTimeoutMs?: number; clock?: { now: number } } = {}) {
  const clock = options.clock ?? { now: Date.now() };
  const gateway = new WebhookSigner(SECRET, { now: () => clock.now });
  const receiver = new WebhookSigner(SECRET, { now: () => clock.now });
  const queue = new ConsentQueue();
  const received: Received[] = [];
  const fetchStub = (async (_url: string | URL | Request, init?: RequestInit) => {
    const body = String(init?.body);
    const got = { body, headers: new Headers(init?.headers), request: (JSON.parse(body) as { request: ConsentRequest }).request };
    received.push(got);
    // Like the real fetch: an aborted signal rejects the request.
    const signal = init?.signal ?? undefined;
    const aborted = new Promise<never>((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));
    return Promise.race([respond(got, (b) => receiver.sign(b)), aborted]);
  }) as typeof fetch;
  const provider = webhookProvider({ url: 'https://approvals.example/hook', signer: gateway, queue, fetch: fetchStub, ...(options.webhookTimeoutMs !== undefined ? { timeoutMs: options.webhookTimeoutMs } : {}) });
  const world = consentWorld([provider], options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {});
  const api = new ConsentHttpApi({ queue, grants: world.grants, adminToken: 'x'.repeat(32), webhook: gateway });
  return { world, received, receiver, queue, api, clock };
}

const signed = async (body: unknown, sign: (b: string) => Promise<Record<string, string>>, status = 200): Promise<Response> => {
  const text = JSON.stringify(body);
  return new Response(text, { status, headers: { 'content-type': 'application/json', ...(await sign(text)) } });
};

describe('webhook consent', () => {
  it('the request is POSTed signed (HMAC-SHA256 over timestamp.body) with the full request; a signed approval in the response allows the call', async () => {
    const { world, received, receiver } = setup((got, sign) => signed({ id: got.request.id, decision: 'approve', approver: 'ops-bot' }, sign));
    const ctx = await world.call({ args: { to: 'bob@example.com', body: 'hi' } });
    const got = received[0] as Received;
    assert.equal(await receiver.verify(got.body, got.headers.get(TIMESTAMP_HEADER) ?? undefined, got.headers.get(SIGNATURE_HEADER) ?? undefined), undefined, 'the receiver verifies the gateway signature');
    assert.deepEqual(got.request.arguments, { to: 'bob@example.com', body: 'hi' });
    assert.equal(ctx.decisions.find((d) => d.interceptor === 'consent')?.detail?.['approver'], 'webhook:ops-bot');
    assert.equal(world.routed.length, 1);
  });

  it('webhook answer with a bad signature: denied', async () => {
    const { world } = setup(async (got) => {
      const text = JSON.stringify({ id: got.request.id, decision: 'approve' });
      return new Response(text, { status: 200, headers: { [TIMESTAMP_HEADER]: String(Math.floor(Date.now() / 1000)), [SIGNATURE_HEADER]: `v1=${'0'.repeat(64)}` } });
    });
    await assert.rejects(world.call(), denied(/webhook's answer was refused: bad signature/));
    assert.equal(world.routed.length, 0);
  });

  it('webhook answer without a signature: denied', async () => {
    const { world } = setup((got) => Promise.resolve(new Response(JSON.stringify({ id: got.request.id, decision: 'approve' }), { status: 200 })));
    await assert.rejects(world.call(), denied(/missing x-switchboard-timestamp or x-switchboard-signature/));
  });

  it('webhook answer signed with another secret: denied', async () => {
    const other = new WebhookSigner('another-secret-9876543210');
    const { world } = setup((got) => signed({ id: got.request.id, decision: 'approve' }, (b) => other.sign(b)));
    await assert.rejects(world.call(), denied(/bad signature/));
  });

  it('replayed signature: an old signed approval (outside the window) is denied', async () => {
    const clock = { now: Date.parse('2026-12-01T10:00:00Z') };
    const old = new WebhookSigner(SECRET, { now: () => clock.now - 10 * 60_000 });
    const { world } = setup((got) => signed({ id: got.request.id, decision: 'approve' }, (b) => old.sign(b)), { clock });
    await assert.rejects(world.call(), denied(/stale or replayed/));
  });

  it('replayed signature: a signed approval captured for one request does not approve another', async () => {
    let captured: Response | undefined;
    const { world } = setup(async (got, sign) => {
      if (captured === undefined) {
        captured = await signed({ id: got.request.id, decision: 'approve' }, sign);
        return captured.clone();
      }
      return captured.clone();
    });
    await world.call();
    await assert.rejects(world.call({ args: { to: 'eve@evil.example' } }), denied(/replayed|names request/));
    assert.equal(world.routed.length, 1);
  });

  it('a signed deny in the response: denied with its reason', async () => {
    const { world } = setup((got, sign) => signed({ id: got.request.id, decision: 'deny', reason: 'outside office hours' }, sign));
    await assert.rejects(world.call(), denied(/outside office hours/));
  });

  it('webhook down: denied', async () => {
    const { world } = setup(() => Promise.reject(new TypeError('fetch failed')));
    await assert.rejects(world.call(), denied(/webhook consent provider failed \(the webhook did not answer within 10000 ms or could not be reached/));
  });

  it('webhook answers with an error status: denied', async () => {
    const { world } = setup(() => Promise.resolve(new Response('oops', { status: 500 })));
    await assert.rejects(world.call(), denied(/answered HTTP 500/));
  });

  it('late answer in the response (after the webhook timeout): denied', async () => {
    const { world } = setup(
      (_got) =>
        new Promise<Response>(() => {
          // never answers in time; the provider's timeout aborts the request
        }),
      { webhookTimeoutMs: 20 },
    );
    await assert.rejects(world.call(), denied(/did not answer within 20 ms/));
  });

  it('pending (202), then a signed answer POSTed to /consent/webhook: allowed', async () => {
    const { world, api, queue, receiver } = setup(() => Promise.resolve(new Response(null, { status: 202 })));
    const call = world.call();
    const id = await new Promise<string>((resolve) => queue.subscribe((e) => void (e.type === 'request' && resolve(e.request.id))));
    const body = JSON.stringify({ id, decision: 'approve', approver: 'carol' });
    const bytes = new TextEncoder().encode(body);
    const headers: Record<string, string> = await receiver.sign(body);
    const answer = await api.handle({ method: 'POST', path: '/consent/webhook', header: (n) => headers[n], body: bytes });
    assert.equal(answer?.status, 200);
    await call;
    assert.equal(world.routed.length, 1);
    const replay = await api.handle({ method: 'POST', path: '/consent/webhook', header: (n) => headers[n], body: bytes });
    assert.equal(replay?.status, 401, 'the same signed answer again is a replay');
  });

  it('later answer with a bad signature: refused (401) and the call stays waiting until it is denied', async () => {
    const { world, api, queue } = setup(() => Promise.resolve(new Response(null, { status: 202 })), { timeoutMs: 50 });
    const call = world.call();
    const id = await new Promise<string>((resolve) => queue.subscribe((e) => void (e.type === 'request' && resolve(e.request.id))));
    const body = JSON.stringify({ id, decision: 'approve' });
    const headers: Record<string, string> = { [TIMESTAMP_HEADER]: String(Math.floor(Date.now() / 1000)), [SIGNATURE_HEADER]: 'v1=00' };
    const answer = await api.handle({ method: 'POST', path: '/consent/webhook', header: (n) => headers[n], body: new TextEncoder().encode(body) });
    assert.equal(answer?.status, 401);
    await assert.rejects(call, denied(/nobody answered/));
    assert.equal(world.routed.length, 0);
  });

  it('late answer through /consent/webhook (after the request timed out): refused, nothing approved', async () => {
    const { world, api, queue, receiver } = setup(() => Promise.resolve(new Response(null, { status: 202 })), { timeoutMs: 20 });
    let id = '';
    queue.subscribe((e) => void (e.type === 'request' && (id = e.request.id)));
    await assert.rejects(world.call(), denied(/nobody answered/));
    const body = JSON.stringify({ id, decision: 'approve' });
    const headers: Record<string, string> = await receiver.sign(body);
    const late = await api.handle({ method: 'POST', path: '/consent/webhook', header: (n) => headers[n], body: new TextEncoder().encode(body) });
    assert.equal(late?.status, 404);
    assert.equal(world.routed.length, 0);
  });
});
