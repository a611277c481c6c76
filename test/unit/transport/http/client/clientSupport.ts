// Test support for the HTTP client transport: a recording node:http mock server and a sink.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after } from 'node:test';
import type { ChannelSink } from '../../../../../src/jsonrpc/channel.js';
import type { DecodeResult } from '../../../../../src/jsonrpc/decode.js';
import type { JsonRpcMessage, JsonRpcRequest } from '../../../../../src/jsonrpc/messages.js';
import { StreamableHttpClientTransport, type StreamableHttpClientOptions } from '../../../../../src/transport/http/client/client.js';

export interface Seen {
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly json: JsonRpcRequest;
}
export type Handler = (req: Seen, res: ServerResponse) => void | Promise<void>;

/** A tiny node:http server recording every request and answering through `handler`. */
export async function mock(handler: Handler): Promise<{ url: string; seen: Seen[]; closed: string[] }> {
  const seen: Seen[] = [];
  const closed: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json = {} as JsonRpcRequest;
      try {
        json = JSON.parse(body) as JsonRpcRequest;
      } catch {
        // GET / DELETE
      }
      const entry: Seen = { method: req.method ?? '', headers: req.headers, body, json };
      seen.push(entry);
      res.on('close', () => closed.push(json.method ?? req.method ?? ''));
      void handler(entry, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, seen, closed };
}

export function sendJson(res: ServerResponse, body: unknown, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

export function result(req: Seen, value: Record<string, unknown>): unknown {
  return { jsonrpc: '2.0', id: req.json.id, result: { resultType: 'complete', ...value } };
}

export function collector(): ChannelSink & { frames: DecodeResult[]; messages: JsonRpcMessage[] } {
  const frames: DecodeResult[] = [];
  const messages: JsonRpcMessage[] = [];
  return {
    frames,
    messages,
    receive(frame) {
      frames.push(frame);
      if ('message' in frame) messages.push(frame.message);
    },
    closed() {},
  };
}

export async function transport(url: string, options: Partial<StreamableHttpClientOptions> = {}) {
  const t = new StreamableHttpClientTransport({ url, ...options });
  const sink = collector();
  await t.start(sink);
  after(() => t.close());
  return { t, sink };
}
