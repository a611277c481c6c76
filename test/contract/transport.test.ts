/**
 * Runs the transport contract against every transport:
 *
 * - the in-memory pair;
 * - stdio over a real child process: `StdioClientTransport` spawns a byte relay whose stdio is
 *   bridged to a Unix socket, where an in-process `StdioServerTransport` serves (so both
 *   sides are our real stdio code, and the framing is shown to work over a socket too);
 * - NDJSON over in-process streams: two `StdioServerTransport`s on a `PassThrough` pair.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after } from 'node:test';
import type { ChannelSink, SendOptions } from '../../src/jsonrpc/channel.js';
import type { JsonRpcMessage } from '../../src/jsonrpc/messages.js';
import { createInMemoryPair } from '../../src/transport/memory.js';
import { StdioClientTransport } from '../../src/transport/stdio/client.js';
import { StdioServerTransport } from '../../src/transport/stdio/server.js';
import type { Transport } from '../../src/transport/types.js';
import { relayPath } from '../fixtures/stdio.js';
import { transportContract } from './transport.contract.js';

transportContract('in-memory pair', async () => createInMemoryPair());

transportContract('NDJSON over in-process streams', async () => {
  const clientToServer = new PassThrough();
  const serverToClient = new PassThrough();
  const client = new StdioServerTransport({ input: serverToClient, output: clientToServer });
  const server = new StdioServerTransport({ input: clientToServer, output: serverToClient });
  return [client, server];
});

/**
 * A server transport for a socket that does not exist yet: the relay connects only once the
 * client transport has spawned it, which happens in the client's `start()`. Every call is
 * forwarded, in order, to a StdioServerTransport over the socket once it arrives.
 */
class SocketServerTransport implements Transport {
  readonly #inner: Promise<StdioServerTransport>;
  #first = true;

  constructor(socket: Promise<Socket>) {
    this.#inner = socket.then((s) => new StdioServerTransport({ input: s, output: s }));
  }

  start(sink: ChannelSink): Promise<void> {
    const started = this.#inner.then((t) => t.start(sink));
    if (!this.#first) return started;
    // The first start must not wait for the client to spawn the relay (it may start later).
    this.#first = false;
    started.catch(() => undefined);
    return Promise.resolve();
  }

  async send(message: JsonRpcMessage | readonly JsonRpcMessage[], options?: SendOptions): Promise<void> {
    await (await this.#inner).send(message, options);
  }

  async close(): Promise<void> {
    await (await this.#inner).close();
  }
}

const servers: Server[] = [];
const dir = mkdtempSync(join(tmpdir(), 'switchboard-stdio-'));
let seq = 0;
after(() => {
  for (const server of servers) server.close();
  rmSync(dir, { recursive: true, force: true });
});

transportContract('stdio (child process + socket)', async () => {
  const path = join(dir, `relay-${seq++}.sock`);
  const server = createServer();
  servers.push(server);
  const socket = new Promise<Socket>((resolve) => server.once('connection', resolve));
  await new Promise<void>((resolve) => server.listen(path, resolve));
  const client = new StdioClientTransport({ command: process.execPath, args: [relayPath, path], stderr: 'inherit', shutdownTimeoutMs: 1000 });
  return [client, new SocketServerTransport(socket)];
});
