/**
 * SDK v2 over Streamable HTTP, wired as its README documents for plain `node:http`:
 * - `stateless`: `createMcpHandler(factory)` wrapped once with `toNodeHandler` (a server
 *   instance per request, the 2026-07-28 path);
 * - `session`: one `NodeStreamableHTTPServerTransport` + server per session, keyed by
 *   `Mcp-Session-Id` (the 2025-11-25 path).
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { announce, exitOnSignal, readBody, targetArgs } from './common.js';
import { buildSdk2Server } from './sdk2Server.js';

const args = targetArgs();
exitOnSignal();

if (args.mode === 'stateless') {
  const handle = toNodeHandler(createMcpHandler(() => buildSdk2Server(args.tools)));
  // The SDK types `method` as always present; Node types it optional on IncomingMessage.
  announce(createServer((req, res) => void handle(req as Parameters<typeof handle>[0], res)));
} else {
  const transports = new Map<string, NodeStreamableHTTPServerTransport>();
  announce(
    createServer((req, res) => {
      void (async () => {
        const sid = req.headers['mcp-session-id'];
        const body: unknown = req.method === 'POST' ? JSON.parse(await readBody(req)) : undefined;
        let transport = typeof sid === 'string' ? transports.get(sid) : undefined;
        if (transport === undefined) {
          if (sid !== undefined) return void res.writeHead(404).end();
          const created = new NodeStreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: (id) => void transports.set(id, created),
          });
          created.onclose = () => created.sessionId !== undefined && transports.delete(created.sessionId);
          await buildSdk2Server(args.tools).connect(created);
          transport = created;
        }
        await transport.handleRequest(req, res, body);
      })().catch((error: unknown) => {
        process.stderr.write(`sdk2Http: ${String(error)}\n`);
        if (!res.headersSent) res.writeHead(500).end();
      });
    }),
  );
}
