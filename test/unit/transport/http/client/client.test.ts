import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Connection } from '../../../../../src/jsonrpc/connection.js';
import { JsonRpcError } from '../../../../../src/jsonrpc/errors.js';
import type { JsonRpcRequest } from '../../../../../src/jsonrpc/messages.js';
import { StreamableHttpClientTransport } from '../../../../../src/transport/http/client/client.js';
import { FETCH_ABORT_HOOK, type FetchInit, type FetchLike } from '../../../../../src/transport/http/client/clientOptions.js';
import { isMcpError, McpErrorCode } from '../../../../../src/util/errors.js';
import { mock, result, sendJson, transport } from './clientSupport.js';

const V = '2026-07-28';


let nextId = 1;
function req(method: string, params: Record<string, unknown> = {}): JsonRpcRequest {
  return { jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': V } } };
}

const listResult = {
  tools: [
    {
      name: 'sql',
      inputSchema: {
        type: 'object',
        properties: {
          region: { type: 'string', 'x-mcp-header': 'Region' },
          opts: { type: 'object', properties: { limit: { type: 'integer', 'x-mcp-header': 'Limit' } } },
          dry: { type: 'boolean', 'x-mcp-header': 'Dry' },
          note: { type: 'string', 'x-mcp-header': 'Note' },
          empty: { type: 'string', 'x-mcp-header': 'Empty' },
          gone: { type: 'string', 'x-mcp-header': 'Gone' },
          method: { type: 'string', 'x-mcp-header': 'Method' },
          query: { type: 'string' },
        },
      },
    },
    { name: 'bad', inputSchema: { type: 'object', properties: { a: { type: 'number', 'x-mcp-header': 'A' } } } },
  ],
};

describe('http client · 2026-07-28 request headers', () => {
  it('sends the standard headers and mirrors x-mcp-header parameters (base64, integer, boolean, empty, null)', async () => {
    const { url, seen } = await mock((r, res) => sendJson(res, result(r, r.json.method === 'tools/list' ? listResult : { content: [] })));
    const { t, sink } = await transport(url);
    await t.send(req('tools/list'));
    await t.send(
      req('tools/call', {
        name: 'sql',
        arguments: { region: 'us-west1', opts: { limit: 42 }, dry: false, note: 'héllo wörld', empty: '', gone: null, method: 'x', query: 'q' },
      }),
    );
    assert.equal(sink.messages.length, 2);
    const list = seen[0]!.headers;
    assert.equal(list['mcp-protocol-version'], V);
    assert.equal(list['mcp-method'], 'tools/list');
    assert.equal(list['mcp-name'], undefined);
    assert.equal(list['accept'], 'application/json, text/event-stream');
    assert.equal(list['content-type'], 'application/json');
    const call = seen[1]!.headers;
    assert.equal(call['mcp-method'], 'tools/call');
    assert.equal(call['mcp-name'], 'sql');
    assert.equal(call['mcp-param-region'], 'us-west1');
    assert.equal(call['mcp-param-limit'], '42');
    assert.equal(call['mcp-param-dry'], 'false');
    assert.equal(call['mcp-param-note'], `=?base64?${Buffer.from('héllo wörld').toString('base64')}?=`);
    assert.equal(call['mcp-param-empty'], '');
    assert.equal('mcp-param-gone' in call, false);
    assert.equal(call['mcp-param-method'], 'x');
    assert.equal(Object.keys(call).filter((k) => k.startsWith('mcp-param-')).length, 6);
  });

  it('encodes whitespace-edged, control-char and sentinel-looking strings as base64', async () => {
    const { url, seen } = await mock((r, res) => sendJson(res, result(r, r.json.method === 'tools/list' ? listResult : {})));
    const { t } = await transport(url);
    await t.send(req('tools/list'));
    for (const value of [' lead', 'trail ', 'tab\there', 'line\nbreak', '=?base64?abc?=']) {
      await t.send(req('tools/call', { name: 'sql', arguments: { region: value } }));
      assert.equal(seen.at(-1)!.headers['mcp-param-region'], `=?base64?${Buffer.from(value).toString('base64')}?=`, value);
    }
    await t.send(req('tools/call', { name: 'sql', arguments: { region: 'a b' } }));
    assert.equal(seen.at(-1)!.headers['mcp-param-region'], 'a b');
  });

  it('never mirrors parameters of a tool with invalid annotations, and forgets tools missing from a new list', async () => {
    let tools: unknown = listResult;
    const { url, seen } = await mock((r, res) => sendJson(res, result(r, r.json.method === 'tools/list' ? (tools as Record<string, unknown>) : {})));
    const { t } = await transport(url);
    await t.send(req('tools/list'));
    await t.send(req('tools/call', { name: 'bad', arguments: { a: 1 } }));
    assert.equal(seen.at(-1)!.headers['mcp-param-a'], undefined);
    tools = { tools: [] };
    await t.send(req('tools/list'));
    await t.send(req('tools/call', { name: 'sql', arguments: { region: 'eu' } }));
    assert.equal(seen.at(-1)!.headers['mcp-param-region'], undefined);
  });

  it('sets Mcp-Name from uri, name and taskId', async () => {
    const { url, seen } = await mock((r, res) => sendJson(res, result(r, {})));
    const { t } = await transport(url);
    await t.send(req('resources/read', { uri: 'file:///path/to/file%20name.txt' }));
    await t.send(req('prompts/get', { name: 'my-hyphenated-prompt' }));
    await t.send(req('tasks/get', { taskId: 't-1' }));
    await t.send(req('resources/read', { uri: 'file:///é' }));
    assert.deepEqual(
      seen.map((s) => [s.headers['mcp-method'], s.headers['mcp-name']]),
      [
        ['resources/read', 'file:///path/to/file%20name.txt'],
        ['prompts/get', 'my-hyphenated-prompt'],
        ['tasks/get', 't-1'],
        ['resources/read', `=?base64?${Buffer.from('file:///é').toString('base64')}?=`],
      ],
    );
  });

  it('adds static headers and a bearer token; retries once after onUnauthorized', async () => {
    let calls = 0;
    const { url, seen } = await mock((r, res) => {
      if (r.headers['authorization'] !== 'Bearer good') {
        res.writeHead(401, { 'www-authenticate': 'Bearer resource_metadata="x"' }).end();
        return;
      }
      sendJson(res, result(r, {}));
    });
    let token = 'stale';
    const infos: unknown[] = [];
    const { t, sink } = await transport(url, {
      headers: { 'X-Trace': 'abc', Accept: 'text/plain' },
      authorize: () => Promise.resolve(token),
      onUnauthorized: (info) => {
        calls++;
        infos.push(info);
        token = 'good';
        return Promise.resolve(true);
      },
    });
    await t.send(req('tools/list'));
    assert.equal(calls, 1);
    assert.deepEqual(infos, [{ status: 401, wwwAuthenticate: 'Bearer resource_metadata="x"', url, authorization: 'Bearer stale' }], 'onUnauthorized learns which credential was refused');
    assert.equal(seen.length, 2);
    assert.equal(seen[1]!.headers['x-trace'], 'abc');
    assert.equal(seen[1]!.headers['accept'], 'application/json, text/event-stream');
    assert.equal(sink.messages.length, 1);
  });

  it('authorizationHeaders supplies per-request headers; a DPoP nonce challenge after authorizing is retried too', async () => {
    const { url, seen } = await mock((r, res) => {
      if (r.headers['authorization'] === undefined) {
        res.writeHead(401, { 'www-authenticate': 'DPoP resource_metadata="x"' }).end();
        return;
      }
      if (r.headers['dpop'] !== 'proof-n1') {
        res.writeHead(401, { 'www-authenticate': 'DPoP error="use_dpop_nonce"', 'dpop-nonce': 'n1' }).end();
        return;
      }
      sendJson(res, result(r, {}));
    });
    let token: string | undefined;
    let nonce = '';
    const calls: string[] = [];
    const infos: unknown[] = [];
    const { t, sink } = await transport(url, {
      authorize: () => Promise.resolve('ignored'),
      authorizationHeaders: (method, target) => {
        calls.push(`${method} ${target}`);
        return Promise.resolve(token === undefined ? {} : { Authorization: `DPoP ${token}`, DPoP: `proof-${nonce}` });
      },
      onUnauthorized: (info) => {
        infos.push(info);
        if (info.dpopNonce !== undefined) nonce = info.dpopNonce;
        token = 'tok';
        return Promise.resolve(true);
      },
    });
    await t.send(req('tools/list'));
    assert.equal(seen.length, 3);
    assert.deepEqual(calls, [`POST ${url}`, `POST ${url}`, `POST ${url}`]);
    assert.equal(seen[2]!.headers['authorization'], 'DPoP tok');
    assert.deepEqual(infos, [
      { status: 401, wwwAuthenticate: 'DPoP resource_metadata="x"', url },
      { status: 401, wwwAuthenticate: 'DPoP error="use_dpop_nonce"', url, dpopNonce: 'n1', authorization: 'DPoP tok' },
    ]);
    assert.equal(sink.messages.length, 1);
  });

  it('suspends the connection timers while onUnauthorized runs (a person signing in), and resumes them after', async () => {
    const { url } = await mock((r, res) => {
      if (r.headers['authorization'] !== 'Bearer good') {
        res.writeHead(401, { 'www-authenticate': 'Bearer resource_metadata="x"' }).end();
        return;
      }
      sendJson(res, result(r, {}));
    });
    let open = 0;
    const during: number[] = [];
    let token = 'none';
    const t = new StreamableHttpClientTransport({
      url,
      authorize: () => Promise.resolve(token),
      onUnauthorized: () => {
        during.push(open);
        token = 'good';
        return Promise.resolve(true);
      },
    });
    const received: unknown[] = [];
    await t.start({
      receive: (frame) => received.push(frame),
      closed: () => undefined,
      suspendTimers: () => {
        open++;
        return () => void open--;
      },
    });
    await t.send(req('tools/list'));
    assert.deepEqual(during, [1]);
    assert.equal(open, 0);
    assert.equal(received.length, 1);
    await t.close();
  });

  it('stops retrying after three auth retries of one request', async () => {
    const { url, seen } = await mock((_r, res) => void res.writeHead(401, { 'www-authenticate': 'Bearer' }).end());
    const { t } = await transport(url, { onUnauthorized: () => Promise.resolve(true) });
    await assert.rejects(t.send(req('tools/list')), (e) => isMcpError(e, McpErrorCode.HttpStatus));
    assert.equal(seen.length, 4);
  });

  it('with onUnauthorized alone, answers that are not a challenge never reach it (a 200, a 403 without WWW-Authenticate)', async () => {
    let status = 200;
    const { url, seen } = await mock((r, res) => {
      if (status === 200) sendJson(res, result(r, { tools: [] }));
      else res.writeHead(status).end();
    });
    const asked: number[] = [];
    const { t } = await transport(url, { onUnauthorized: (info) => (asked.push(info.status), Promise.resolve(true)) });
    await t.send(req('tools/list'));
    status = 403;
    await assert.rejects(t.send(req('tools/list')), (e) => isMcpError(e, McpErrorCode.HttpStatus));
    assert.deepEqual(asked, []);
    assert.equal(seen.length, 2, 'one request each, no retry');
  });

  it('a 401 that onUnauthorized cannot fix rejects with the challenge', async () => {
    const { url } = await mock((_r, res) => void res.writeHead(401, { 'www-authenticate': 'Bearer scope="a"' }).end());
    const { t } = await transport(url, { onUnauthorized: () => Promise.resolve(false) });
    await assert.rejects(t.send(req('tools/list')), (e) => {
      assert.ok(isMcpError(e, McpErrorCode.HttpStatus));
      assert.deepEqual(e.cause, { status: 401, body: '', wwwAuthenticate: 'Bearer scope="a"' });
      return true;
    });
  });
});

describe('http client · responses', () => {
  it('delivers SSE messages as they arrive: progress before the result', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { url } = await mock(async (r, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } })}\n\n`);
      await gate;
      res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 2 } })}\r\n\r\n: keep-alive\n\n`);
      res.end(`data: ${JSON.stringify(result(r, { ok: true }))}\n\n`);
    });
    const { t, sink } = await transport(url);
    const sent = t.send(req('tools/call', { name: 'slow' }));
    while (sink.messages.length === 0) await new Promise((r) => setTimeout(r, 5));
    assert.equal((sink.messages[0] as { method: string }).method, 'notifications/progress');
    release();
    await sent;
    assert.deepEqual(
      sink.messages.map((m) => ('method' in m ? m.method : 'result')),
      ['notifications/progress', 'notifications/progress', 'result'],
    );
  });

  it('works through a Connection: progress callback, then the result', async () => {
    const { url } = await mock((r, res) => {
      const token = (r.json.params?.['_meta'] as Record<string, unknown>)['progressToken'];
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 0.5 } })}\n\n`);
      res.end(`data: ${JSON.stringify(result(r, { done: 1 }))}\n\n`);
    });
    const connection = new Connection(new StreamableHttpClientTransport({ url }));
    await connection.start();
    const progress: number[] = [];
    const value = await connection.request('tools/call', { name: 'x', _meta: { 'io.modelcontextprotocol/protocolVersion': V } }, { onProgress: (p) => progress.push(p.progress) });
    assert.deepEqual(progress, [0.5]);
    assert.equal(value['done'], 1);
    await connection.close();
  });

  it('a notification answered 202 resolves', async () => {
    const { url, seen } = await mock((_r, res) => void res.writeHead(202).end());
    const { t } = await transport(url);
    await t.send({ jsonrpc: '2.0', method: 'notifications/something', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': V } } });
    assert.equal(seen[0]!.headers['mcp-method'], 'notifications/something');
  });

  it('garbage bodies reach the sink as decoder error frames and the send fails, without crashing', async () => {
    const bodies = ['{not json', '[]', '"str"', JSON.stringify({ jsonrpc: '2.0', id: 999, result: {} })];
    let i = 0;
    const { url } = await mock((_r, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(bodies[i++]));
    const { t, sink } = await transport(url);
    for (let n = 0; n < bodies.length; n++) {
      await assert.rejects(t.send(req('tools/list')), (e) => isMcpError(e, McpErrorCode.InvalidResponse));
    }
    assert.equal(sink.frames.length, 4);
    assert.equal(sink.frames.filter((f) => !f.ok).length, 3);
  });

  it('a garbage SSE event becomes an error frame; the real response still arrives', async () => {
    const { url } = await mock((r, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: {oops\n\ndata: ${JSON.stringify(result(r, {}))}\n\n`);
    });
    const { t, sink } = await transport(url);
    await t.send(req('tools/list'));
    assert.equal(sink.frames.length, 2);
    assert.equal(sink.frames[0]!.ok, false);
  });
});

describe('http client · errors', () => {
  it('400 with a -32022 JSON-RPC body is delivered as the error response', async () => {
    const { url } = await mock((r, res) =>
      sendJson(res, { jsonrpc: '2.0', id: r.json.id, error: { code: -32022, message: 'Unsupported protocol version', data: { supported: [V], requested: 'x' } } }, 400),
    );
    const connection = new Connection(new StreamableHttpClientTransport({ url }));
    await connection.start();
    await assert.rejects(connection.request('tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': 'x' } }), (e) => {
      assert.ok(e instanceof JsonRpcError);
      assert.equal(e.code, -32022);
      assert.deepEqual(e.data, { supported: [V], requested: 'x' });
      return true;
    });
    await connection.close();
  });

  it('an error body with id null is delivered with the request id (404 / -32601)', async () => {
    const { url } = await mock((_r, res) => sendJson(res, { jsonrpc: '2.0', id: null, error: { code: -32601, message: 'Method not found' } }, 404));
    const { t, sink } = await transport(url);
    const message = req('initialize-ish');
    await t.send(message);
    assert.deepEqual(sink.messages, [{ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } }]);
  });

  for (const status of [400, 404, 405, 500]) {
    it(`${status} without a JSON-RPC body rejects with ERR_MCP_HTTP_STATUS`, async () => {
      const { url } = await mock((_r, res) => void res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 500 ? 'x'.repeat(10_000) : ''));
      const { t, sink } = await transport(url);
      await assert.rejects(t.send(req('tools/list')), (e) => {
        assert.ok(isMcpError(e, McpErrorCode.HttpStatus));
        const cause = e.cause as { status: number; body: string };
        assert.equal(cause.status, status);
        assert.equal(cause.body.length, status === 500 ? 4096 : 0);
        return true;
      });
      assert.equal(sink.frames.length, 0);
    });
  }

  it('an error body for another id is not delivered', async () => {
    const { url } = await mock((_r, res) => sendJson(res, { jsonrpc: '2.0', id: 'other', error: { code: -32600, message: 'x' } }, 400));
    const { t, sink } = await transport(url);
    await assert.rejects(t.send(req('tools/list')), (e) => isMcpError(e, McpErrorCode.HttpStatus));
    assert.equal(sink.frames.length, 0);
  });

  it('a network failure rejects with ERR_MCP_SEND_FAILED carrying the cause; Connection wraps it', async () => {
    const { t } = await transport('http://127.0.0.1:1/mcp');
    await assert.rejects(t.send(req('tools/list')), (e) => isMcpError(e, McpErrorCode.SendFailed) && e.cause !== undefined);
    const connection = new Connection(new StreamableHttpClientTransport({ url: 'http://127.0.0.1:1/mcp' }));
    await connection.start();
    await assert.rejects(connection.request('tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': V } }), (e) => {
      assert.ok(isMcpError(e, McpErrorCode.SendFailed));
      assert.ok(isMcpError(e.cause, McpErrorCode.SendFailed));
      return true;
    });
    await connection.close();
  });

  it('a stream that ends without the response (no event id) fails the send', async () => {
    const { url } = await mock((_r, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(': nothing\n\n');
    });
    const { t } = await transport(url);
    await assert.rejects(t.send(req('tools/call', { name: 'x' })), (e) => isMcpError(e, McpErrorCode.SendFailed));
  });

  it('cancelling a 2026 request closes its stream instead of POSTing notifications/cancelled', async () => {
    const { url, seen, closed } = await mock((_r, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': open\n\n');
    });
    const connection = new Connection(new StreamableHttpClientTransport({ url }));
    await connection.start();
    const controller = new AbortController();
    const pending = connection.request('tools/call', { name: 'x', _meta: { 'io.modelcontextprotocol/protocolVersion': V } }, { signal: controller.signal });
    while (seen.length === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    await assert.rejects(pending, (e) => isMcpError(e, McpErrorCode.RequestCancelled));
    while (closed.length === 0) await new Promise((r) => setTimeout(r, 5));
    assert.deepEqual(closed, ['tools/call']);
    assert.equal(seen.length, 1);
    await connection.close();
  });

  it('a fetch marked with FETCH_ABORT_HOOK gets the exchange hook and no signal (cancel aborts through it); an unmarked fetch gets a signal', async () => {
    const inits: FetchInit[] = [];
    const hanging = (url: string, init: FetchInit): Promise<Response> => {
      inits.push(init);
      return new Promise((_resolve, reject) => {
        init[FETCH_ABORT_HOOK]?.onAbort(reject);
        init.signal?.addEventListener('abort', () => reject(init.signal?.reason));
      });
    };
    const marked: FetchLike = Object.assign(hanging, { [FETCH_ABORT_HOOK]: true as const });
    for (const fetch of [marked, (url: string, init: FetchInit) => hanging(url, init)]) {
      inits.length = 0;
      const connection = new Connection(new StreamableHttpClientTransport({ url: 'http://127.0.0.1:1/mcp', fetch }));
      await connection.start();
      const controller = new AbortController();
      const pending = connection.request('tools/call', { name: 'x', _meta: { 'io.modelcontextprotocol/protocolVersion': V } }, { signal: controller.signal });
      while (inits.length === 0) await new Promise((r) => setTimeout(r, 1));
      const init = inits[0] as FetchInit;
      if (fetch === marked) {
        assert.equal(init.signal, undefined);
        assert.equal(init[FETCH_ABORT_HOOK]?.aborted, false);
      } else {
        assert.equal(init[FETCH_ABORT_HOOK], undefined);
        assert.ok(init.signal instanceof AbortSignal);
      }
      controller.abort();
      await assert.rejects(pending, (e) => isMcpError(e, McpErrorCode.RequestCancelled));
      assert.equal((init[FETCH_ABORT_HOOK] ?? init.signal)?.aborted, true);
      await connection.close();
    }
  });

  it('close() aborts in-flight exchanges and closes the sink; later sends reject', async () => {
    const { url } = await mock((_r, res) => void res.writeHead(200, { 'content-type': 'text/event-stream' }).write(': open\n\n'));
    const t = new StreamableHttpClientTransport({ url });
    let closedCalls = 0;
    await t.start({ receive() {}, closed: () => void closedCalls++ });
    const pending = t.send(req('tools/call', { name: 'x' }));
    await new Promise((r) => setTimeout(r, 30));
    await t.close();
    await t.close();
    await assert.rejects(pending, (e) => isMcpError(e, McpErrorCode.ConnectionClosed));
    await assert.rejects(t.send(req('tools/list')), (e) => isMcpError(e, McpErrorCode.ConnectionClosed));
    assert.equal(closedCalls, 1);
    await assert.rejects(t.start({ receive() {}, closed() {} }), (e) => isMcpError(e, McpErrorCode.AlreadyStarted));
  });
});
