import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createStreamableHttpHandler, allowAnyHost, allowAnyOrigin, type HttpRoute } from '../../../../../src/transport/http/server/server.js';
import { encodeHeaderValue } from '../../../../../src/transport/http/headerValue.js';
import { httpStatusForError } from '../../../../../src/protocol/errors.js';
import { isSseStream, type HttpExtra } from '../../../../../src/transport/http/server/types.js';
import { collectSse, fakeDispatcher, json, post, request, withMeta, within, VERSION } from './support.js';

const make = (options: Parameters<typeof createStreamableHttpHandler>[1] = {}) => {
  const d = fakeDispatcher();
  return { d, h: createStreamableHttpHandler(d, { sseKeepAliveMs: 0, ...options }) };
};

describe('http · status map', () => {
  it('MUST 94: a POST request is answered with application/json 200', async () => {
    const { h } = make();
    const res = await h.handle(post(request('echo', { a: 1 }, 7)));
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'application/json');
    const body = json(res);
    assert.equal(body.id, 7);
    assert.deepEqual((body.result?.['echo'] as Record<string, unknown>)['a'], 1);
  });

  for (const method of ['GET', 'DELETE', 'PUT', 'PATCH']) {
    it(`MUST 94: ${method} → 405 with Allow: POST`, async () => {
      const { h, d } = make();
      const res = await h.handle(post(request('echo'), {}, { method }));
      assert.equal(res.status, 405);
      assert.equal(res.headers['allow'], 'POST');
      assert.equal(d.messages.length, 0);
    });
  }

  it('MUST 103: an accepted notification → 202 with no body', async () => {
    const { h, d } = make();
    const res = await h.handle(post({ jsonrpc: '2.0', method: 'notifications/initialized', params: withMeta() }));
    assert.equal(res.status, 202);
    assert.equal(res.body, undefined);
    assert.equal(d.messages.length, 1);
  });

  it('MUST 104: a notification with a mismatched Mcp-Method → 400 id-less error', async () => {
    const { h, d } = make();
    const res = await h.handle(post({ jsonrpc: '2.0', method: 'notifications/x' }, { 'mcp-method': 'notifications/y' }));
    assert.equal(res.status, 400);
    const body = json(res);
    assert.equal(body.error?.code, -32020);
    assert.equal('id' in body, false);
    assert.equal(d.messages.length, 0);
  });

  it('a notification without MCP headers is accepted (no header rules for notifications)', async () => {
    const { h } = make();
    const res = await h.handle(post({ jsonrpc: '2.0', method: 'notifications/x' }, { 'mcp-method': undefined, 'mcp-protocol-version': undefined }));
    assert.equal(res.status, 202);
  });

  it('MUST 115: -32601 from the dispatcher → 404 with the JSON-RPC error', async () => {
    const { h } = make();
    const res = await h.handle(post(request('nope', {}, 3)));
    assert.equal(res.status, 404);
    assert.equal(json(res).error?.code, -32601);
    assert.equal(json(res).id, 3);
  });

  for (const [code, status] of [
    [-32020, 400],
    [-32021, 400],
    [-32022, 400],
    [-32602, 200],
    [-32603, 200],
    [-32000, 200],
    [1234, 200],
  ] as const) {
    it(`a dispatcher error ${code} → ${status}`, async () => {
      const { h } = make();
      const res = await h.handle(post(request('fail', { code })));
      assert.equal(res.status, status);
      assert.equal(json(res).error?.code, code);
    });
  }

  it('-32602 for a request missing _meta fields → 400', async () => {
    const { h } = make();
    const msg = { jsonrpc: '2.0', id: 1, method: 'fail', params: { code: -32602, _meta: { 'io.modelcontextprotocol/protocolVersion': VERSION } } };
    assert.equal((await h.handle(post(msg))).status, 400);
    const noMeta = { jsonrpc: '2.0', id: 1, method: 'fail', params: { code: -32602 } };
    assert.equal((await h.handle(post(noMeta))).status, 400);
    assert.equal(httpStatusForError(-32602, true), 400);
    assert.equal(httpStatusForError(-32602, false), 200);
  });

  it('415 when Content-Type is not application/json; parameters and case are fine', async () => {
    const { h } = make();
    assert.equal((await h.handle(post(request('echo'), { 'content-type': 'text/plain' }))).status, 415);
    assert.equal((await h.handle(post(request('echo'), { 'content-type': undefined }))).status, 415);
    assert.equal((await h.handle(post(request('echo'), { 'content-type': 'application/jsonx' }))).status, 415);
    assert.equal((await h.handle(post(request('echo'), { 'content-type': 'Application/JSON; charset=utf-8' }))).status, 200);
  });

  it('406 unless Accept lists both application/json and text/event-stream', async () => {
    const { h } = make();
    assert.equal((await h.handle(post(request('echo'), { accept: 'application/json' }))).status, 406);
    assert.equal((await h.handle(post(request('echo'), { accept: 'text/event-stream' }))).status, 406);
    assert.equal((await h.handle(post(request('echo'), { accept: undefined }))).status, 406);
    assert.equal((await h.handle(post(request('echo'), { accept: '*/*' }))).status, 200);
    assert.equal((await h.handle(post(request('echo'), { accept: 'text/event-stream;q=0.9 , Application/Json' }))).status, 200);
  });

  it('413 by Content-Length, before reading', async () => {
    const { h, d } = make({ maxBodyBytes: 100 });
    const res = await h.handle(post(request('echo'), { 'content-length': '101' }));
    assert.equal(res.status, 413);
    assert.equal(d.messages.length, 0);
  });

  it('413 by a streamed body without Content-Length', async () => {
    const { h } = make({ maxBodyBytes: 100 });
    const res = await h.handle(post(request('echo', { pad: 'x'.repeat(200) }), { 'content-length': undefined }, { chunks: true }));
    assert.equal(res.status, 413);
    const small = await h.handle(post(request('echo', {}), { 'content-length': undefined }, { chunks: true }));
    assert.equal(small.status, 413, 'the _meta alone is over 100 bytes');
    const { h: h2 } = make({ maxBodyBytes: 4096 });
    assert.equal((await h2.handle(post(request('echo', { pad: 'y' }), {}, { chunks: true }))).status, 200);
  });

  it('400 + -32700 for invalid JSON, id-less', async () => {
    const { h } = make();
    const res = await h.handle(post('{"jsonrpc":"2.0",', { 'mcp-method': 'echo' }));
    assert.equal(res.status, 400);
    assert.equal(json(res).error?.code, -32700);
    assert.equal('id' in json(res), false);
  });

  it('MUST 101: a batch → 400 + -32600', async () => {
    const { h } = make();
    const res = await h.handle(post([request('echo', {}, 1), request('echo', {}, 2)]));
    assert.equal(res.status, 400);
    assert.equal(json(res).error?.code, -32600);
  });

  it('MUST 102: a response in the body → 400 + -32600', async () => {
    const { h, d } = make();
    const res = await h.handle(post({ jsonrpc: '2.0', id: 1, result: {} }));
    assert.equal(res.status, 400);
    assert.equal(json(res).error?.code, -32600);
    assert.equal(d.messages.length, 0);
  });

  it('an invalid request echoes its readable id', async () => {
    const { h } = make();
    const res = await h.handle(post({ jsonrpc: '1.0', id: 'abc', method: 'echo' }));
    assert.equal(res.status, 400);
    assert.equal(json(res).id, 'abc');
    assert.equal(json(res).error?.code, -32600);
  });
});

describe('http · DNS rebinding (Host and Origin)', () => {
  it('MUST 96: a foreign Origin → 403 and the dispatcher never runs', async () => {
    const { h, d } = make();
    const res = await h.handle(post(request('echo'), { origin: 'http://evil.example.com' }));
    assert.equal(res.status, 403);
    assert.equal(d.messages.length, 0);
  });

  it('MUST 96: Origin "null", a look-alike and a non-http scheme → 403', async () => {
    const { h } = make();
    for (const origin of ['null', 'http://localhost.evil.com', 'http://127.0.0.1.nip.io:3000', 'file://localhost', 'http://evil.com#localhost']) {
      assert.equal((await h.handle(post(request('echo'), { origin }))).status, 403, origin);
    }
  });

  it('MUST 95: localhost origins with any port pass; a missing Origin passes', async () => {
    const { h } = make();
    for (const origin of ['http://localhost:5173', 'https://127.0.0.1', 'http://[::1]:8080', 'HTTP://LOCALHOST']) {
      assert.equal((await h.handle(post(request('echo'), { origin }))).status, 200, origin);
    }
    assert.equal((await h.handle(post(request('echo'), { origin: undefined }))).status, 200);
  });

  it('a foreign Host → 403 even without Origin (DNS rebinding)', async () => {
    const { h, d } = make();
    for (const host of ['evil.example.com', 'evil.example.com:3000', 'localhost.evil.com', '127.0.0.2:80', 'localhost:abc']) {
      assert.equal((await h.handle(post(request('echo'), { host }))).status, 403, host);
    }
    assert.equal(d.messages.length, 0);
  });

  it('localhost hosts with any port pass', async () => {
    const { h } = make();
    for (const host of ['localhost', 'LOCALHOST:1', '127.0.0.1:65535', '[::1]:3000', '[::1]']) {
      assert.equal((await h.handle(post(request('echo'), { host }))).status, 200, host);
    }
  });

  it('configured allow-lists replace the defaults; exact host:port entries pin the port', async () => {
    const { h } = make({ allowedHosts: ['mcp.example.com', 'api.example.com:8443'], allowedOrigins: ['https://app.example.com'] });
    assert.equal((await h.handle(post(request('echo'), { host: 'mcp.example.com:443' }))).status, 200);
    assert.equal((await h.handle(post(request('echo'), { host: 'api.example.com:8443' }))).status, 200);
    assert.equal((await h.handle(post(request('echo'), { host: 'api.example.com:8444' }))).status, 403);
    assert.equal((await h.handle(post(request('echo'), { host: 'localhost' }))).status, 403);
    assert.equal((await h.handle(post(request('echo'), { host: 'mcp.example.com', origin: 'https://app.example.com' }))).status, 200);
    assert.equal((await h.handle(post(request('echo'), { host: 'mcp.example.com', origin: 'http://app.example.com' }))).status, 403);
  });

  it('the unsafe symbol switches disable the checks', async () => {
    const { h } = make({ [allowAnyHost]: true, [allowAnyOrigin]: true });
    assert.equal((await h.handle(post(request('echo'), { host: 'evil.com', origin: 'http://evil.com' }))).status, 200);
  });
});

describe('http · header/body agreement (-32020)', () => {
  const expect32020 = async (h: ReturnType<typeof make>['h'], req: ReturnType<typeof post>, mention: RegExp) => {
    const res = await h.handle(req);
    assert.equal(res.status, 400);
    const body = json(res);
    assert.equal(body.error?.code, -32020);
    assert.match(body.error?.message ?? '', mention);
    return body;
  };

  it('MUST 116: a request without MCP-Protocol-Version → 400 -32020', async () => {
    const { h, d } = make();
    const body = await expect32020(h, post(request('echo', {}, 9), { 'mcp-protocol-version': undefined }), /MCP-Protocol-Version/);
    assert.equal(body.id, 9);
    assert.equal(d.messages.length, 0);
  });

  it('MUST 113: MCP-Protocol-Version ≠ _meta version → 400 -32020', async () => {
    const { h } = make();
    await expect32020(h, post(request('echo'), { 'mcp-protocol-version': '2025-11-25' }), /MCP-Protocol-Version/);
  });

  it('_meta without a version is left to the dispatcher', async () => {
    const { h, d } = make();
    const res = await h.handle(post({ jsonrpc: '2.0', id: 1, method: 'echo', params: {} }));
    assert.equal(res.status, 200);
    assert.equal(d.messages.length, 1);
  });

  it('MUST 114: an unsupported version (header = _meta) → 400 -32022 via supportedVersions', async () => {
    const { h, d } = make({ supportedVersions: [VERSION] });
    const msg = { jsonrpc: '2.0', id: 1, method: 'echo', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01', 'io.modelcontextprotocol/clientCapabilities': {} } } };
    const res = await h.handle(post(msg, { 'mcp-protocol-version': '2099-01-01' }));
    assert.equal(res.status, 400);
    assert.equal(json(res).error?.code, -32022);
    assert.deepEqual(json(res).error?.data, { supported: [VERSION], requested: '2099-01-01' });
    assert.equal(d.messages.length, 0);
  });

  it('MUST 117: missing Mcp-Method → 400; value is case-sensitive', async () => {
    const { h } = make();
    await expect32020(h, post(request('echo'), { 'mcp-method': undefined }), /Mcp-Method/);
    await expect32020(h, post(request('tools/list'), { 'mcp-method': 'TOOLS/LIST' }), /Mcp-Method/);
    await expect32020(h, post(request('tools/list'), { 'mcp-method': 'prompts/list' }), /Mcp-Method/);
  });

  it('MUST 145: header names are case-insensitive (MCP-METHOD, mcp-method)', async () => {
    const { h } = make();
    // The getter receives lowercase names; adapters lower-case on the way in. Here the raw map is case-folded by `post`.
    assert.equal((await h.handle(post(request('tools/list'), { 'MCP-METHOD': 'tools/list', 'Mcp-Protocol-Version': VERSION }))).status, 200);
  });

  it('OWS around header values is ignored', async () => {
    const { h } = make();
    assert.equal((await h.handle(post(request('tools/call', { name: 'x' }), { 'mcp-name': '  x\t', 'mcp-method': ' tools/call ' }))).status, 200);
  });

  for (const [method, field] of [
    ['tools/call', 'name'],
    ['prompts/get', 'name'],
    ['resources/read', 'uri'],
    ['tasks/get', 'taskId'],
  ] as const) {
    it(`MUST 117/146: ${method} needs Mcp-Name = params.${field}`, async () => {
      const { h } = make();
      const msg = request(method, { [field]: 'alpha' });
      assert.equal((await h.handle(post(msg))).status, 200);
      await expect32020(h, post(msg, { 'mcp-name': undefined }), /Mcp-Name/);
      await expect32020(h, post(msg, { 'mcp-name': 'beta' }), /Mcp-Name/);
      await expect32020(h, post(msg, { 'mcp-name': 'ALPHA' }), /Mcp-Name/);
    });
  }

  it('MUST 135: Mcp-Name in the Base64 sentinel form is decoded before comparing', async () => {
    const { h } = make();
    const uri = 'file:///tmp/héllo wörld.txt';
    const msg = request('resources/read', { uri });
    const encoded = encodeHeaderValue(uri);
    assert.match(encoded, /^=\?base64\?.*\?=$/);
    assert.equal((await h.handle(post(msg, { 'mcp-name': encoded }))).status, 200);
    await expect32020(h, post(msg, { 'mcp-name': encodeHeaderValue('file:///other') }), /Mcp-Name/);
    // A literal sentinel-looking name must itself be encoded.
    const literal = '=?base64?literal?=';
    const lit = request('tools/call', { name: literal });
    assert.equal((await h.handle(post(lit, { 'mcp-name': '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=' }))).status, 200);
    await expect32020(h, post(lit, { 'mcp-name': literal }), /Mcp-Name/);
  });

  it('MUST 139: malformed sentinel or invalid characters → -32020', async () => {
    const { h } = make();
    const msg = request('tools/call', { name: 'x' });
    await expect32020(h, post(msg, { 'mcp-name': '=?base64?!!!?=' }), /Mcp-Name/);
    await expect32020(h, post(msg, { 'mcp-name': '=?base64?/w==?=' }), /Mcp-Name/); // 0xFF is not UTF-8
    await expect32020(h, post(msg, { 'mcp-name': 'x\u00e9' }), /Mcp-Name/);
    await expect32020(h, post(msg, { 'mcp-protocol-version': '2026-07-28\u0001' }), /MCP-Protocol-Version/);
  });

  it('a tool without Mcp-Param headers and an unknown tool are not checked here', async () => {
    const { h } = make();
    assert.equal((await h.handle(post(request('tools/call', { name: 'plain', arguments: { a: 1 } })))).status, 200);
    assert.equal((await h.handle(post(request('tools/call', { name: 'ghost', arguments: { region: 'x' } })))).status, 200);
  });

  describe('Mcp-Param-{Name} (x-mcp-header)', () => {
    const call = (args: Record<string, unknown>) => request('tools/call', { name: 'sql', arguments: args });

    it('MUST 140/142: present values need matching headers', async () => {
      const { h } = make();
      const msg = call({ region: 'us-west1', opts: { limit: 42 }, dry: true });
      const all = { 'mcp-param-region': 'us-west1', 'mcp-param-limit': '42', 'mcp-param-dry': 'true' };
      assert.equal((await h.handle(post(msg, all))).status, 200);
      await expect32020(h, post(msg, { ...all, 'mcp-param-region': 'eu-west1' }), /Mcp-Param-Region/);
      await expect32020(h, post(msg, { ...all, 'mcp-param-limit': '43' }), /Mcp-Param-Limit/);
      await expect32020(h, post(msg, { ...all, 'mcp-param-dry': 'false' }), /Mcp-Param-Dry/);
      await expect32020(h, post(msg, { ...all, 'mcp-param-dry': 'TRUE' }), /Mcp-Param-Dry/);
    });

    it('MUST 144: value in body but header missing → -32020', async () => {
      const { h } = make();
      const msg = call({ region: 'us-west1' });
      await expect32020(h, post(msg), /Mcp-Param-Region/);
    });

    it('MUST 143: null or absent values need no header', async () => {
      const { h } = make();
      assert.equal((await h.handle(post(call({ region: null, query: 'q' })))).status, 200);
      assert.equal((await h.handle(post(call({ opts: {} })))).status, 200);
      assert.equal((await h.handle(post(request('tools/call', { name: 'sql' })))).status, 200);
    });

    it('a header without a body value → -32020', async () => {
      const { h } = make();
      await expect32020(h, post(call({}), { 'mcp-param-region': 'us-west1' }), /Mcp-Param-Region/);
    });

    it('integers compare numerically: 42 equals 42.0 and 4.2e1, not 42.5 or "0x2a"', async () => {
      const { h } = make();
      const msg = call({ opts: { limit: 42 } });
      for (const v of ['42', '42.0', '4.2e1', '+42']) assert.equal((await h.handle(post(msg, { 'mcp-param-limit': v }))).status, 200, v);
      for (const v of ['42.5', '0x2a', '', 'forty-two', '42abc']) await expect32020(h, post(msg, { 'mcp-param-limit': v }), /Mcp-Param-Limit/);
      // A string where an integer is declared never matches.
      await expect32020(h, post(call({ opts: { limit: '42' } }), { 'mcp-param-limit': '42' }), /Mcp-Param-Limit/);
    });

    it('MUST 135: Base64 sentinel values are decoded (non-ASCII, padding, newlines)', async () => {
      const { h } = make();
      for (const region of ['Hello, 世界', ' padded ', 'line1\nline2', '=?base64?literal?=']) {
        const msg = call({ region });
        assert.equal((await h.handle(post(msg, { 'mcp-param-region': encodeHeaderValue(region) }))).status, 200, region);
      }
      assert.equal((await h.handle(post(call({ region: 'Hello, 世界' }), { 'mcp-param-region': '=?base64?SGVsbG8sIOS4lueVjA==?=' }))).status, 200);
      // Markers are case-sensitive: an uppercase sentinel is a plain value and mismatches.
      await expect32020(h, post(call({ region: 'Hello, 世界' }), { 'mcp-param-region': '=?BASE64?SGVsbG8sIOS4lueVjA==?=' }), /Mcp-Param-Region/);
    });

    it('MUST 139: invalid characters in a recognized Mcp-Param header → -32020', async () => {
      const { h } = make();
      await expect32020(h, post(call({ region: 'ü' }), { 'mcp-param-region': 'ü' }), /Mcp-Param-Region/);
    });

    it('MUST 145: Mcp-Param header names are case-insensitive', async () => {
      const { h } = make();
      assert.equal((await h.handle(post(call({ region: 'r' }), { 'MCP-PARAM-REGION': 'r' }))).status, 200);
    });
  });
});

describe('http · JSON vs SSE', () => {
  it('MUST 105/107: notifications before the response switch to text/event-stream', async () => {
    const { h } = make();
    const res = await h.handle(post(request('progress', { count: 3 }, 'p1')));
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'text/event-stream');
    assert.equal(res.headers['x-accel-buffering'], 'no');
    assert.equal(res.headers['cache-control'], 'no-cache');
    assert.ok(isSseStream(res.body));
    const events = (await collectSse(res)) as { method?: string; id?: unknown; result?: { done: number }; params?: { text: string } }[];
    assert.equal(events.length, 4);
    assert.deepEqual(events.slice(0, 3).map((e) => e.method), ['notifications/progress', 'notifications/progress', 'notifications/progress']);
    assert.equal(events[0]?.params?.text, 'line1\nline2');
    assert.equal(events[3]?.id, 'p1');
    assert.equal(events[3]?.result?.done, 3);
  });

  it('no notification → plain JSON', async () => {
    const { h } = make();
    const res = await h.handle(post(request('progress', { count: 0 })));
    assert.equal(res.headers['content-type'], 'application/json');
    assert.equal(json(res).result?.['done'], 0);
  });

  it('an error after notifications travels as the final SSE event', async () => {
    const d = fakeDispatcher();
    const h = createStreamableHttpHandler(
      {
        async dispatch(message, env) {
          env.notify({ jsonrpc: '2.0', method: 'notifications/message', params: {} });
          await d.dispatch(message, env);
          return { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'x' } };
        },
      },
      { sseKeepAliveMs: 0 },
    );
    const res = await h.handle(post(request('anything')));
    assert.equal(res.status, 200);
    const events = (await collectSse(res)) as { error?: { code: number } }[];
    assert.equal(events[1]?.error?.code, -32601);
  });

  it('keep-alive comments are written on quiet streams', async () => {
    const { h, d } = make({ sseKeepAliveMs: 5 });
    const controller = new AbortController();
    const res = await h.handle(post(request('listen'), {}, { signal: controller.signal }));
    assert.ok(isSseStream(res.body));
    const chunks: string[] = [];
    let twoKeepAlives!: () => void;
    const seen = new Promise<void>((resolve) => (twoKeepAlives = resolve));
    res.body.start({
      write: (c) => {
        chunks.push(c);
        if (chunks.filter((x) => x === ':\n\n').length === 2) twoKeepAlives();
      },
      end: () => chunks.push('<end>'),
    });
    await within(seen, 'two keep-alive comments');
    controller.abort();
    await d.settled[0];
    const n = chunks.length;
    // Absence over time is the claim: four keep-alive periods pass after the cancellation.
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(chunks.length, n, 'nothing after cancellation');
  });
});

describe('http · cancellation', () => {
  it('MUST 109/110: closing a listen stream aborts env.signal and nothing more is sent', async () => {
    const { h, d } = make();
    const res = await h.handle(post(request('listen', {}, 'L')));
    assert.ok(isSseStream(res.body));
    const chunks: string[] = [];
    let ended = false;
    res.body.start({ write: (c) => chunks.push(c), end: () => (ended = true) });
    assert.equal(chunks.length, 1);
    assert.match(chunks[0] ?? '', /subscriptions\/acknowledged/);
    res.body.cancel(new Error('client went away'));
    await d.settled[0];
    assert.deepEqual(d.aborted, ['listen']);
    assert.equal(d.envs[0]?.signal.aborted, true);
    assert.equal(chunks.length, 1, 'neither the late notification nor the result is written');
    assert.equal(ended, false);
  });

  it('MUST 109: the request signal (connection closed) aborts env.signal', async () => {
    const { h, d } = make();
    const controller = new AbortController();
    const pending = h.handle(post(request('slow', { ms: 30 }), {}, { signal: controller.signal }));
    await d.began(1);
    controller.abort();
    await pending;
    assert.deepEqual(d.aborted, ['slow']);
  });

  it('an already-aborted request signal arrives aborted', async () => {
    const { h, d } = make();
    const controller = new AbortController();
    controller.abort();
    await h.handle(post(request('echo'), {}, { signal: controller.signal }));
    assert.equal(d.envs[0]?.signal.aborted, true);
  });
});

describe('http · extra and route seams', () => {
  it('env.extra carries http facts and the hook output', async () => {
    const { h, d } = make({ extra: async () => ({ principal: 'alice', http: 'overwritten' }) });
    await h.handle(post(request('echo'), { 'x-custom': 'v' }));
    const extra = d.envs[0]?.extra as { principal: string; http: HttpExtra };
    assert.equal(extra.principal, 'alice');
    assert.equal(extra.http.method, 'POST');
    assert.equal(extra.http.path, '/mcp');
    assert.equal(extra.http.getHeader('x-custom'), 'v');
  });

  it('route sees GET before the 405 and header-less initialize before the 2026 rules', async () => {
    const seen: string[] = [];
    const route: HttpRoute = (req, input) => {
      if (input === undefined) {
        seen.push(req.method);
        return req.method === 'GET' ? { status: 200, headers: { 'content-type': 'text/event-stream' }, body: 'legacy' } : undefined;
      }
      const d = input.decoded;
      if (d !== undefined && 'message' in d && d.ok && 'method' in d.message && d.message.method === 'initialize' && req.header('mcp-protocol-version') === undefined) {
        seen.push('initialize');
        return { status: 200, headers: { 'content-type': 'application/json', 'mcp-session-id': 's1' }, body: '{}' };
      }
      return undefined;
    };
    const { h, d } = make({ route });
    assert.equal((await h.handle(post(request('echo'), {}, { method: 'GET' }))).status, 200);
    assert.equal((await h.handle(post(request('echo'), {}, { method: 'DELETE' }))).status, 405);
    const init = await h.handle(post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: {} }, { 'mcp-protocol-version': undefined }));
    assert.equal(init.headers['mcp-session-id'], 's1');
    assert.equal((await h.handle(post(request('echo')))).status, 200);
    assert.deepEqual(seen, ['GET', 'DELETE', 'initialize']);
    assert.equal(d.messages.length, 1);
  });

  it('route never sees requests failing the Host/Origin checks', async () => {
    let called = 0;
    const { h } = make({ route: () => void called++ });
    assert.equal((await h.handle(post(request('echo'), { origin: 'https://evil.com' }, { method: 'GET' }))).status, 403);
    assert.equal(called, 0);
  });
});

describe('http · fetch entry', () => {
  const url = 'http://localhost:3000/mcp?x=1';
  const init = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': VERSION, 'mcp-method': (body as { method: string }).method, ...headers },
    body: JSON.stringify(body),
  });

  it('answers JSON through Request/Response', async () => {
    const { h, d } = make();
    const res = await h.fetch(new Request(url, init(request('echo', { q: 1 }, 5))));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json');
    const body = (await res.json()) as { id: number };
    assert.equal(body.id, 5);
    assert.equal((d.envs[0]?.extra as { http: HttpExtra }).http.path, '/mcp');
  });

  it('uses the URL authority as Host: a foreign URL host → 403', async () => {
    const { h } = make();
    const res = await h.fetch(new Request('http://evil.example.com/mcp', init(request('echo'))));
    assert.equal(res.status, 403);
  });

  it('streams SSE and cancelling the body aborts the dispatch', async () => {
    const { h, d } = make();
    const res = await h.fetch(new Request(url, init(request('listen', {}, 'L2'))));
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    assert.match(new TextDecoder().decode(first.value), /^data: .*acknowledged.*\n\n$/);
    await reader.cancel();
    await d.settled[0];
    assert.deepEqual(d.aborted, ['listen']);
  });

  it('413 for a streamed body over the limit; 202 with a null body', async () => {
    const { h } = make({ maxBodyBytes: 64 });
    const big = new Request(url, init(request('echo', { pad: 'x'.repeat(100) })));
    assert.equal((await h.fetch(big)).status, 413);
    const { h: h2 } = make();
    const note = await h2.fetch(new Request(url, init({ jsonrpc: '2.0', method: 'notifications/x' })));
    assert.equal(note.status, 202);
    assert.equal(await note.text(), '');
  });
});
