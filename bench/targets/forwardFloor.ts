/**
 * The forward floor: the least a Node process does to forward the bench's `tools/call` from
 * Streamable HTTP to one downstream server, the bound below which no Node gateway goes. It is
 * what a gateway cannot skip and nothing else: a `node:http` server in, the body read and
 * `JSON.parse`d, the request id remapped to one of its own, the message `JSON.stringify`d to
 * the downstream; the answer parsed, its id restored, stringified and sent with
 * `Content-Length`. No validation, no routing table, no interceptor, no logging.
 *
 * Downstreams (`--downstream`):
 * - `stdio` (default): spawns the stdio floor (`floorStdio.js`; it inherits this process's
 *   core pinning) and writes one NDJSON line per call to its stdin; lines written in one turn
 *   of the event loop share one `write` (flushed by `setImmediate`, as our stdio client
 *   batches); answers are split on `\n` from its stdout.
 * - `http`: the HTTP floor at `--downstream-port`, over keep-alive `node:net` connections
 *   (the bench's {@link HttpConnection}: one request in flight per connection, idle ones kept
 *   for the next call unless the floor closed them, a new one opened when none is idle). Leaner than a keep-alive
 *   `node:http` Agent (no `ClientRequest`, `IncomingMessage` or their stream events): about
 *   45–60 µs less CPU per call at c=32, for the same syscalls.
 *
 * Wires (`--mode`): `stateless` (2026-07-28) forwards every request as is, with the
 * `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers to an HTTP downstream;
 * `session` (2025-11-25) answers `initialize` locally with a fresh `Mcp-Session-Id` and
 * `notifications/initialized` with 202, refuses an unknown session with 404 (as the HTTP floor
 * does), and forwards the calls over one downstream session opened at start (an `initialize`
 * handshake on the child's stdio, or an HTTP session with its own `Mcp-Session-Id`).
 *
 * Prints `LISTENING <port>` once the downstream is ready.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { HttpConnection } from '../lib/httpClient.js';
import { INITIALIZED, initializeCall, LEGACY, MODERN } from '../lib/wire.js';
import { announce, argValue, exitOnSignal, readBody, targetArgs } from './common.js';
import { floorAnswerer } from './floorCore.js';

/** A JSON-RPC message as parsed. */
type Message = Record<string, unknown>;
/** Sends `message` (its id already remapped) downstream; calls `done` with the answer, or undefined when the downstream failed. */
type Forward = (message: Message, req: IncomingMessage, done: (answer: Message | undefined) => void) => void;

const args = targetArgs();
const session = args.mode === 'session';
/** The local answers of the session wire (`initialize`). */
const answerLocally = floorAnswerer(1);
const sessions = new Set<string>();
let nextId = 1;

function fail(reason: string): never {
  process.stderr.write(`forward floor: ${reason}\n`);
  process.exit(1);
}

/** The stdio downstream: the stdio floor as a child, NDJSON both ways. */
async function stdioDownstream(): Promise<Forward> {
  const child = spawn(process.execPath, [resolve(import.meta.dirname, 'floorStdio.js')], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.once('exit', (code) => fail(`the stdio floor exited (${code})`));
  const stdin = child.stdin;
  const pending = new Map<number, (answer: Message) => void>();
  let partial = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    const text = partial === '' ? chunk : partial + chunk;
    let start = 0;
    for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
      const answer = JSON.parse(text.slice(start, end)) as Message;
      start = end + 1;
      const done = pending.get(answer['id'] as number);
      if (done === undefined) continue;
      pending.delete(answer['id'] as number);
      done(answer);
    }
    partial = text.slice(start);
  });
  let batch = '';
  const flush = (): void => {
    stdin.write(batch);
    batch = '';
  };
  const send = (line: string): void => {
    if (batch === '') setImmediate(flush);
    batch += line + '\n';
  };
  const forward: Forward = (message, _req, done) => {
    pending.set(message['id'] as number, done);
    send(JSON.stringify(message));
  };
  if (session) {
    const id = nextId++;
    await new Promise<Message>((answered) => {
      pending.set(id, answered);
      send(initializeCall(id));
    });
    send(INITIALIZED);
  }
  return forward;
}

/** The HTTP downstream: the HTTP floor over keep-alive `node:net` connections, one request in flight on each. */
async function httpDownstream(port: number): Promise<Forward> {
  const idle: HttpConnection[] = [];
  const base: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const post = async (headers: Record<string, string>, body: string): Promise<{ status: number; sessionId: string | undefined; body: string }> => {
    // The floor closes a connection idle past its keep-alive timeout: skip those.
    let connection = idle.pop();
    while (connection?.closed === true) connection = idle.pop();
    connection ??= await HttpConnection.open('127.0.0.1', port);
    const response = await connection.request('POST', '/mcp', headers, body);
    if (!connection.closed) idle.push(connection);
    return { status: response.status, sessionId: response.headers.get('mcp-session-id'), body: response.body };
  };
  let sessionHeaders: Record<string, string> | undefined;
  if (session) {
    const opened = await post({ ...base }, initializeCall(nextId++));
    if (opened.status !== 200 || opened.sessionId === undefined) fail(`downstream initialize: ${opened.status} ${opened.body.slice(0, 200)}`);
    sessionHeaders = { ...base, 'mcp-protocol-version': LEGACY, 'mcp-session-id': opened.sessionId };
    const acked = await post(sessionHeaders, INITIALIZED);
    if (acked.status >= 300) fail(`downstream notifications/initialized: ${acked.status}`);
  }
  return (message, req, done) => {
    const headers = sessionHeaders ?? {
      ...base,
      'mcp-protocol-version': MODERN,
      'mcp-method': String(message['method']),
      ...(req.headers['mcp-name'] === undefined ? {} : { 'mcp-name': String(req.headers['mcp-name']) }),
    };
    post(headers, JSON.stringify(message)).then(
      (response) => done(response.status === 200 ? (JSON.parse(response.body) as Message) : undefined),
      () => done(undefined),
    );
  };
}

/** Answers `message` on `res` with status 200 and `Content-Length`, plus `headers`. */
function reply(res: ServerResponse, message: Message, headers?: Record<string, string>): void {
  const body = JSON.stringify(message);
  res.writeHead(200, { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }).end(body);
}

/** One upstream request: local on the session wire's handshake, forwarded otherwise. */
function handle(forward: Forward, text: string, req: IncomingMessage, res: ServerResponse): void {
  const message = JSON.parse(text) as Message;
  const upstreamId = message['id'];
  if (session) {
    if (message['method'] === 'initialize') {
      const sessionId = randomUUID();
      sessions.add(sessionId);
      reply(res, answerLocally(message) as Message, { 'mcp-session-id': sessionId });
      return;
    }
    if (!sessions.has(String(req.headers['mcp-session-id']))) {
      res.writeHead(404).end();
      return;
    }
  }
  if (upstreamId === undefined) {
    res.writeHead(202).end();
    return;
  }
  message['id'] = nextId++;
  forward(message, req, (answer) => {
    if (answer === undefined) {
      res.writeHead(502).end();
      return;
    }
    answer['id'] = upstreamId;
    reply(res, answer);
  });
}

const downstreamPort = Number(argValue('--downstream-port'));
const forward = argValue('--downstream') === 'http' ? await httpDownstream(downstreamPort) : await stdioDownstream();
const server = createServer((req, res) => {
  if (req.method !== 'POST') {
    res.writeHead(req.method === 'DELETE' ? 200 : 405).end();
    return;
  }
  readBody(req).then(
    (text) => handle(forward, text, req, res),
    () => res.writeHead(400).end(),
  );
});
exitOnSignal();
announce(server);
