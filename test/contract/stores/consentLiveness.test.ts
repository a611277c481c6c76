// The shared consent queue on PostgreSQL when the instance a call waits on dies: two queues on
// one schema (two gateway instances, each with its own application_name), the asking one cut
// off abruptly (every connection of it dropped and refused, as when its process is killed).
// Within a few seconds the other stops listing the request, and an answer to it is refused as
// "the call that asked is gone" (410 through the answering channels), never recorded.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { ConsentQueue } from '../../../src/host/consent/consentQueue.js';
import type { ConsentAnswer } from '../../../src/host/consent/consentTypes.js';
import { ConsentCallGoneError } from '../../../src/host/consent/sharedConsent.js';
import { PgConsentRequests } from '../../../src/store/postgres/pgConsent.js';
import { PgDatabase } from '../../../src/store/postgres/pgDatabase.js';
import { POSTGRES_URL, TcpGate, freshSchema, openTestPostgres } from './backends.js';
import { sampleRequest, seen } from './consentStores.contract.js';

const closers: (() => unknown)[] = [];
after(async () => {
  for (const close of closers.reverse()) await close();
});

const APPROVE: ConsentAnswer = { approved: true, scope: { match: 'call', duration: 'once' }, approver: 'admin-token', mediated: 'person' };
const name = (who: string): string => `switchboard-test ${who} ${randomBytes(4).toString('hex')}`;

/** Resolves with the reason once `queue` reports request `id` closed. */
function closed(queue: ConsentQueue, id: string): Promise<string> {
  return new Promise((resolve) => {
    const off = queue.subscribe((e) => {
      if (e.type === 'closed' && e.id === id) {
        off();
        resolve(e.reason);
      }
    });
  });
}

/** Two instances on one schema; the asker's connections go through a gate that can cut them. */
async function instances() {
  const schema = freshSchema();
  await openTestPostgres({ schema, applicationName: name('setup') });
  const gate = new TcpGate(POSTGRES_URL);
  await gate.open();
  closers.push(() => gate.close());
  const askerDb = await PgDatabase.open(gate.via(POSTGRES_URL), { schema, applicationName: name('asker'), connectTimeoutMs: 500 });
  closers.push(() => askerDb.close());
  const answererDb = await openTestPostgres({ schema, applicationName: name('answerer') });
  const asker = new ConsentQueue({ shared: new PgConsentRequests(askerDb, { livenessMs: 200 }) });
  const answererStore = new PgConsentRequests(answererDb, { livenessMs: 200 });
  const answerer = new ConsentQueue({ shared: answererStore });
  closers.push(() => asker.close(), () => answerer.close());
  await Promise.all([asker.ready(), answerer.ready()]);
  return { gate, asker, answerer, answererStore };
}

describe('shared consent queue on PostgreSQL: the requests of an instance that died', () => {
  it('a live instance\'s request stays listed past several liveness sweeps and is answered', async () => {
    const { asker, answerer } = await instances();
    const request = sampleRequest();
    const asked = asker.ask(request, { signal: new AbortController().signal });
    await seen(answerer, request.id);
    // Five sweeps of 200 ms: long enough for a wrong "gone" to show, and what is under test is that none does.
    const wronglyGone = new Promise<boolean>((resolve) => {
      const off = answerer.subscribe((e) => e.type === 'closed' && e.id === request.id && resolve(true));
      setTimeout(() => {
        off();
        resolve(false);
      }, 1000);
    });
    assert.equal(await wronglyGone, false);
    assert.equal(await answerer.tryAnswer(request.id, APPROVE), undefined);
    assert.equal((await asked).approved, true);
  });

  it('dead instance: its request stops being listed within a few seconds, and an answer is refused as "the call that asked is gone"', async () => {
    const { gate, asker, answerer, answererStore } = await instances();
    const request = sampleRequest();
    void asker.ask(request, { signal: new AbortController().signal }).catch(() => undefined);
    await seen(answerer, request.id);
    const whenClosed = closed(answerer, request.id);
    const cutAt = Date.now();
    await gate.close(); // the asking instance's connections drop, as when its process is killed
    assert.match(await whenClosed, /the call that asked is gone/);
    assert.ok(Date.now() - cutAt < 5000, `took ${Date.now() - cutAt} ms`);
    assert.equal(answerer.get(request.id), undefined);
    assert.deepEqual(answerer.pending(), []);
    const refused = await answerer.tryAnswer(request.id, APPROVE);
    assert.equal(refused?.status, 410);
    assert.match(refused?.error ?? '', /the call that asked for consent request .* is gone: the gateway instance it waited on stopped; the answer was not applied/);
    assert.deepEqual(answerer.refusal(request.id), refused);
    // The store itself refuses to record it (no answer is written for a call nobody can deliver to).
    await assert.rejects(answererStore.answer(request.id, APPROVE), (error: unknown) => error instanceof ConsentCallGoneError && /switchboard-test asker/.test(error.message));
    assert.equal(await answererStore.answerOf(request.id), undefined);
    assert.deepEqual(await answererStore.pending(Date.now()), []);
  });
});
