import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findSecrets } from '../../../../src/host/secrets/findSecrets.js';
import { policyInterceptor } from '../../../../src/host/policy/policyEngine.js';
import { MemoryTaintStore } from '../../../../src/host/policy/taint.js';
import { decodedForms, secretsIn, stringsIn } from '../../../../src/host/policy/valueTaint.js';
import { detect, run, text, type Req } from './support.js';

const SECRET = 'sk_test_4eC39HqLyjWDarjtT1zdp7dc';
const hex = (s: string): string => Array.from(new TextEncoder().encode(s), (b) => b.toString(16).padStart(2, '0')).join('');

/** No labels at all: value taint alone. */
function world(mode: 'ask' | 'deny' = 'ask') {
  const store = new MemoryTaintStore();
  const policy = policyInterceptor({ canAsk: false, detectSecrets: detect, valueTaint: mode, store });
  const as: Req = { principal: 'alice', session: 's1' };
  return {
    store,
    read: () => run([policy], { ...as, server: 'notes', tool: 'read' }, text(`Stripe key for billing: ${SECRET}\nremember to rotate`)),
    send: (body: unknown, server = 'chat') => run([policy], { ...as, server, tool: 'send', args: { body } }),
  };
}

describe('host/policy/valueTaint: a secret from one server in a call to another', () => {
  for (const [encoding, body] of [
    ['verbatim', `here you go: ${SECRET}`],
    ['base64', `payload=${btoa(`key ${SECRET}`)}`],
    ['base64url of the bare secret', btoa(SECRET).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')],
    ['hex', `0x${hex(SECRET)}`],
    ['URL-encoded', `https://collect.example/?k=${encodeURIComponent(`${SECRET} `)}`],
  ] as const) {
    it(`secret pasted ${encoding} into a message body: caught with the origin named`, async () => {
      const w = world();
      await w.read();
      const r = await w.send(body);
      assert.equal(r.routed, false, `not caught: ${body}`);
      const d = r.ctx.decisions[0];
      assert.equal(d?.detail?.['rule'], 'builtin.value-taint');
      assert.match(d?.reason ?? '', /a secret that came out of notes\/notes__read at .* is in this request to server chat/);
    });
  }

  it('secret hidden in a nested argument (array inside an object): caught', async () => {
    const w = world();
    await w.read();
    const r = await w.send({ attachments: [{ note: `fyi ${SECRET}` }] });
    assert.equal(r.routed, false);
  });

  it('valueTaint "deny" denies outright', async () => {
    const w = world('deny');
    await w.read();
    const r = await w.send(SECRET);
    assert.equal(r.ctx.decisions[0]?.outcome, 'deny');
  });

  it('the same secret going back to the server it came from is not flagged', async () => {
    const w = world();
    await w.read();
    assert.equal((await w.send(SECRET, 'notes')).routed, true);
  });

  it('benign: a random-looking value that never came out of a server is not flagged', async () => {
    const w = world();
    await w.read();
    const r = await w.send(`sk_test_${'Zq8'.repeat(8)} and ${btoa('sk_test_AAAAAAAAAAAAAAAAAAAAAAAA')} and ${hex('9f8e7d6c5b4a39281706f5e4d3c2b1a0')}`);
    assert.equal(r.routed, true);
    assert.equal(r.ctx.decisions[0]?.detail?.['rule'], 'default');
  });

  it('only fingerprints are kept: the secret value appears nowhere in the store', async () => {
    const w = world();
    await w.read();
    const state = w.store.get('session:s1', Date.now());
    assert.equal(state?.secrets.size, 1);
    const dump = JSON.stringify([...(state?.secrets.entries() ?? [])]);
    assert.ok(!dump.includes(SECRET) && !dump.includes('4eC39HqLyjWDarjtT1zdp7dc'));
  });

  it('shedding by reconnecting: the secret is still caught in a new session of the same principal', async () => {
    const store = new MemoryTaintStore();
    const policy = policyInterceptor({ canAsk: false, detectSecrets: detect, store });
    await run([policy], { principal: 'alice', session: 'old', server: 'notes', tool: 'read' }, text(SECRET));
    const r = await run([policy], { principal: 'alice', session: 'new', server: 'chat', tool: 'send', args: { body: SECRET } });
    assert.equal(r.routed, false);
  });
});

describe('host/policy/valueTaint: decoding and the built-in detector', () => {
  it('decodes URL, base64 and hex forms one level', () => {
    const forms = decodedForms(`a=${encodeURIComponent('x y')}&b=${btoa('hello world!')}&c=${hex('plain text')}`);
    assert.ok(forms.includes('hello world!'));
    assert.ok(forms.includes('plain text'));
    assert.ok(forms.some((f) => f.includes('x y')));
  });

  it('the gateway detector (findSecrets values) knows token formats and key assignments, not random ids', () => {
    const detect = (text: string): string[] => findSecrets(text).map((m) => m.value);
    assert.ok(detect(`token: ${SECRET}`).includes(SECRET));
    assert.ok(detect('api_key = hunter2hunter2X9q').some((v) => v.includes('hunter2hunter2X9q')));
    assert.deepEqual(detect('request id 3f2a9c1e-7b6d-4e8f-9a0b-1c2d3e4f5a6b'), []);
  });
});

describe('host/policy/valueTaint: the strings of a result', () => {
  it('stringsIn visits every string in order, at most 10,000 and 32 levels deep', () => {
    assert.deepEqual(stringsIn({ kind: 'complete', value: { content: [{ type: 'text', text: 'a' }, 7, null, 'b'] } }), ['complete', 'text', 'a', 'b']);
    assert.equal(stringsIn(Array.from({ length: 12_000 }, (_, i) => `s${i}`)).length, 10_000);
    let deep: unknown = 'bottom';
    for (let i = 0; i < 40; i++) deep = [deep];
    assert.deepEqual(stringsIn(deep), []);
  });

  it('secretsIn: undefined for a result without secrets, else each value of 8 characters or more once', () => {
    assert.equal(secretsIn(text('hello'), detect), undefined);
    const found = secretsIn({ content: [{ type: 'text', text: `key ${SECRET}` }, { type: 'text', text: `again ${SECRET}` }] }, detect);
    assert.deepEqual([...(found ?? [])], [SECRET]);
  });
});
