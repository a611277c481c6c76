/**
 * SDK v1 over Streamable HTTP with sessions, the pattern of its README on plain `node:http`:
 * a `StreamableHTTPServerTransport` + `McpServer` per session, created on `initialize` and
 * found again by `Mcp-Session-Id`. Default options (answers stream as SSE). v1 has no
 * 2026-07-28 wire, so `--mode stateless` exits with code 3.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { announce, exitOnSignal, readBody, targetArgs } from './common.js';
import { buildSdk1Server } from './sdk1Server.js';

const args = targetArgs();
if (args.mode === 'stateless') {
  process.stderr.write('sdk v1 has no 2026-07-28 stateless wire\n');
  process.exit(3);
}
exitOnSignal();
const transports = new Map<string, StreamableHTTPServerTransport>();
announce(
  createServer((req, res) => {
    void (async () => {
      const sid = req.headers['mcp-session-id'];
      const body: unknown = req.method === 'POST' ? JSON.parse(await readBody(req)) : undefined;
      let transport = typeof sid === 'string' ? transports.get(sid) : undefined;
      if (transport === undefined) {
        if (sid !== undefined || !isInitializeRequest(body)) return void res.writeHead(sid === undefined ? 400 : 404).end();
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void transports.set(id, created),
        });
        created.onclose = () => created.sessionId !== undefined && transports.delete(created.sessionId);
        await buildSdk1Server(args.tools).connect(created);
        transport = created;
      }
      await transport.handleRequest(req, res, body);
    })().catch((error: unknown) => {
      process.stderr.write(`sdk1Http: ${String(error)}\n`);
      if (!res.headersSent) res.writeHead(500).end();
    });
  }),
);
