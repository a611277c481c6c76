import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findSecrets } from '../../../../src/host/secrets/findSecrets.js';
import { policyInterceptor } from '../../../../src/host/policy/policyEngine.js';
import { MemoryTaintStore } from '../../../../src/host/policy/taint.js';
import { gzipSync } from 'node:zlib';
import { formsOf } from '../../../../src/host/policy/taintForms.js';
import { secretsIn, stringsIn } from '../../../../src/host/policy/valueTaint.js';
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
  it('decodes URL, base64 and hex forms', async () => {
    const forms = await formsOf(`a=${encodeURIComponent('x y')}&b=${btoa('hello world!')}&c=${hex('plain text')}`);
    assert.ok(forms.texts.includes('hello world!'));
    assert.ok(forms.texts.includes('plain text'));
    assert.ok(forms.texts.some((f) => f.includes('x y')));
  });

  it('encodings nested past the limit: the string is reported unreadable, never passed unread', async () => {
    let nested = 'sk_test_nothing_here_at_all';
    for (let i = 0; i < 8; i++) nested = btoa(nested);
    const forms = await formsOf(nested);
    assert.match(forms.unreadable ?? '', /nested deeper/);
  });

  it('benign: an ordinary paragraph decodes to nothing unreadable (misaligned base64 of words is not decoded further)', async () => {
    const prose = 'Internationalization of the administrators documentation, 2024-01-15 10:30:00, deadbeefcafe, 1,234,567 items. '.repeat(50);
    assert.equal((await formsOf(prose)).unreadable, undefined);
  });

  it('the gateway detector (findSecrets values) knows token formats and key assignments, not random ids', () => {
    const detect = (text: string): string[] => findSecrets(text).map((m) => m.value);
    assert.ok(detect(`token: ${SECRET}`).includes(SECRET));
    assert.ok(detect('api_key = hunter2hunter2X9q').some((v) => v.includes('hunter2hunter2X9q')));
    assert.deepEqual(detect('request id 3f2a9c1e-7b6d-4e8f-9a0b-1c2d3e4f5a6b'), []);
  });
});

describe('host/policy/valueTaint: the strings of a result', () => {
  it('stringsIn visits every string in order, object keys included, at any depth', () => {
    assert.deepEqual(stringsIn({ kind: 'complete', value: { content: [{ type: 'text', text: 'a' }, 7, null, 'b'] } }), ['kind', 'complete', 'value', 'content', 'type', 'text', 'text', 'a', 'b']);
    let deep: unknown = 'bottom';
    for (let i = 0; i < 5_000; i++) deep = [deep];
    assert.deepEqual(stringsIn(deep), ['bottom']);
  });

  it('secretsIn: undefined for a result without secrets, else each value of 8 characters or more once', async () => {
    assert.equal(secretsIn(text('hello'), detect), undefined);
    const found = await secretsIn({ content: [{ type: 'text', text: `key ${SECRET}` }, { type: 'text', text: `again ${SECRET}` }] }, detect);
    assert.deepEqual([...(found ?? [])], [SECRET]);
  });
});

/** A world where notes returns `result` (the secret somewhere in it), then chat is sent `body`. */
function sourced(result: unknown) {
  const store = new MemoryTaintStore();
  const policy = policyInterceptor({ canAsk: false, detectSecrets: detect, store });
  const as: Req = { principal: 'alice', session: 's1' };
  return {
    read: () => run([policy], { ...as, server: 'notes', tool: 'read' }, result),
    send: (body: unknown, server = 'chat') => run([policy], { ...as, server, tool: 'send', args: { body } }),
    policy,
    as,
  };
}

const caught = (r: Awaited<ReturnType<typeof run>>, what: string): void => {
  assert.equal(r.routed, false, `not caught: ${what}`);
  assert.equal(r.ctx.decisions[0]?.detail?.['rule'], 'builtin.value-taint', what);
};

describe('host/policy/valueTaint: sources an attacker would route a secret through (#32)', () => {
  const cases: [string, unknown][] = [
    ['an embedded resource blob (base64)', { content: [{ type: 'resource', resource: { uri: 'file:///k', mimeType: 'application/octet-stream', blob: btoa(`key=${SECRET}`) } }] }],
    ['a gzip\'d blob', { contents: [{ uri: 'file:///k.gz', blob: gzipSync(Buffer.from(`config\n${SECRET}\n`)).toString('base64') }] }],
    ['structuredContent 60 levels deep', { content: [], structuredContent: JSON.parse(`${'{"a":'.repeat(60)}"${SECRET}"${'}'.repeat(60)}`) }],
    ['a structuredContent key', { content: [], structuredContent: { [SECRET]: true } }],
  ];
  for (const [where, result] of cases) {
    it(`secret arriving in ${where} is fingerprinted and caught on its way to another server`, async () => {
      const w = sourced(result);
      await w.read();
      caught(await w.send(`fyi ${SECRET}`), where);
    });
  }

  it("secret arriving in a server's error message is fingerprinted and caught on its way to another server", async () => {
    const w = sourced(() => {
      throw Object.assign(new Error(`upstream failed: bad key ${SECRET}`), { code: -32000 });
    });
    const failed = await w.read();
    assert.ok(failed.error instanceof Error, 'the error still reaches the caller');
    caught(await w.send(SECRET), 'error message');
  });
});

describe('host/policy/valueTaint: sinks and encodings an attacker would use (#32)', () => {
  const codes = [...SECRET].map((c) => c.charCodeAt(0));
  const bodies: [string, unknown][] = [
    ['as an object key', { [SECRET]: 'x' }],
    ['80 levels deep', JSON.parse(`${'{"a":'.repeat(80)}"${SECRET}"${'}'.repeat(80)}`)],
    ['as an array of character codes', codes],
    ['as character codes in a string', codes.join(',')],
    ['as \\u escapes', [...SECRET].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')],
    ['as \\x escapes and HTML entities', `${[...SECRET.slice(0, 10)].map((c) => `\\x${c.charCodeAt(0).toString(16)}`).join('')}${[...SECRET.slice(10)].map((c) => `&#${c.charCodeAt(0)};`).join('')}`],
    ['as hex with colons', hex(SECRET).match(/../g)?.join(':')],
    ['as hex with dashes', hex(SECRET).match(/../g)?.join('-')],
    ['as spaced hex', hex(SECRET).match(/../g)?.join(' ')],
    ['as 0x-prefixed hex bytes', hex(SECRET).match(/../g)?.map((b) => `0x${b}`).join(', ')],
    ['as base64 of base64 of hex', btoa(btoa(hex(SECRET)))],
    ['as gzip\'d base64', gzipSync(Buffer.from(`here: ${SECRET}`)).toString('base64')],
    ['as base64 of gzip inside base64', btoa(gzipSync(Buffer.from(SECRET)).toString('base64'))],
    ['glued inside a word', `prefix${SECRET}suffix`],
    ['glued, base64 with a glued prefix', `xyz${btoa(SECRET)}`],
    ['split over the items of an array', [SECRET.slice(0, 11), SECRET.slice(11, 20), SECRET.slice(20)]],
    ['one character per array item', [...SECRET]],
  ];
  for (const [how, body] of bodies) {
    it(`exfiltration ${how}: caught`, async () => {
      const w = sourced(text(`Stripe key: ${SECRET}`));
      await w.read();
      caught(await w.send(body), how);
    });
  }

  it('exfiltration split over two calls: the first half passes, the second is caught (state across calls in the session)', async () => {
    const w = sourced(text(`Stripe key: ${SECRET}`));
    await w.read();
    const first = await w.send(`part one: ${SECRET.slice(0, 15)}`);
    assert.equal(first.routed, true, 'half a secret alone is not a leak of it');
    caught(await w.send(`part two: ${SECRET.slice(15)}`), 'second half');
  });

  it('exfiltration split over two calls, each half base64-encoded: caught', async () => {
    const w = sourced(text(`Stripe key: ${SECRET}`));
    await w.read();
    assert.equal((await w.send(btoa(SECRET.slice(0, 16)))).routed, true);
    caught(await w.send(btoa(SECRET.slice(16))), 'second half in base64');
  });

  it("exfiltration through the answer to a server's sampling request: the answer is withheld from that server", async () => {
    const w = sourced(text(`Stripe key: ${SECRET}`));
    await w.read();
    const r = await run([w.policy], { ...w.as, method: 'server/request', server: 'chat', serverMethod: 'sampling/createMessage', params: { messages: [] } }, { role: 'assistant', content: { type: 'text', text: `Sure, the key is ${SECRET}` } });
    assert.equal(r.routed, true, 'the client was asked');
    assert.equal(r.result, undefined, 'the answer never reached the server');
    assert.match(String((r.error as Error).message), /answer to server chat's sampling\/createMessage .*withheld/);
  });

  it("exfiltration through the answer to a server's elicitation (hex in a form field): withheld", async () => {
    const w = sourced(text(`Stripe key: ${SECRET}`));
    await w.read();
    const r = await run([w.policy], { ...w.as, method: 'server/request', server: 'chat', serverMethod: 'elicitation/create', params: { message: 'token?', requestedSchema: { type: 'object' } } }, { action: 'accept', content: { token: hex(SECRET).match(/../g)?.join(':') } });
    assert.match(String((r.error as Error).message), /elicitation\/create .*withheld/);
  });

  it('benign: answers, ordinary text with & and URLs, and the secret going back to its own server pass', async () => {
    const w = sourced(text(`Stripe key: ${SECRET}`));
    await w.read();
    for (const body of ['Tom & Jerry: https://example.com/a?b=c&d=e', { list: [1, 2, 3, 4, 5, 6, 7, 8], words: ['a', 'b', 'c'] }, 'Internationalization deadbeefcafe 2024-01-15']) {
      const r = await w.send(body);
      assert.equal(r.routed, true, JSON.stringify(body));
    }
    assert.equal((await w.send(`prefix${SECRET}`, 'notes')).routed, true);
    const answer = await run([w.policy], { ...w.as, method: 'server/request', server: 'chat', serverMethod: 'elicitation/create', params: { message: 'name?' } }, { action: 'accept', content: { name: 'Alice & Bob' } });
    assert.deepEqual(answer.result, { action: 'accept', content: { name: 'Alice & Bob' } });
  });
});
