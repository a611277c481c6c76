/**
 * The client floor: no MCP library, just the bench's own wire — a pool of keep-alive
 * {@link HttpConnection}s (one per call in flight) for HTTP, a newline-framed pipe with an id
 * map for stdio. Shows what the client libraries cost on top of bare I/O.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { HttpConnection } from '../lib/httpClient.js';
import { echoCall, httpHeaders, jsonRpcOf } from '../lib/wire.js';
import { expectHello, type BenchClient, type ConnectClient } from './types.js';

async function httpClient(url: URL, concurrency: number): Promise<BenchClient> {
  const idle = await Promise.all(Array.from({ length: concurrency }, () => HttpConnection.open(url.hostname, Number(url.port))));
  const all = [...idle];
  const headers = httpHeaders('tools/call', true);
  let nextId = 1;
  return {
    callEcho: async () => {
      const conn = idle.pop();
      if (conn === undefined) throw new Error('more calls in flight than connections');
      try {
        const id = nextId++;
        const response = await conn.request('POST', url.pathname, headers, echoCall(id, true));
        expectHello(jsonRpcOf(response.body)?.['result']);
      } finally {
        idle.push(conn);
      }
    },
    close: async () => all.forEach((c) => c.close()),
  };
}

function stdioClient(command: string, args: readonly string[]): BenchClient {
  const child = spawn(command, [...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting = new Map<number, (message: Record<string, unknown>) => void>();
  let buffer = '';
  let nextId = 1;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const message = JSON.parse(buffer.slice(0, nl)) as Record<string, unknown>;
      buffer = buffer.slice(nl + 1);
      const id = message['id'] as number;
      waiting.get(id)?.(message);
      waiting.delete(id);
    }
  });
  return {
    callEcho: () =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        waiting.set(id, (message) => {
          try {
            expectHello(message['result']);
            resolve();
          } catch (error) {
            reject(error as Error);
          }
        });
        child.stdin.write(echoCall(id, true) + '\n');
      }),
    close: async () => {
      child.stdin.end();
      child.kill();
    },
  };
}

const connect: ConnectClient = async (endpoint, concurrency) =>
  endpoint.kind === 'http' ? httpClient(new URL(endpoint.url), concurrency) : stdioClient(endpoint.command, endpoint.args);
export default connect;
