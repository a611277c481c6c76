/**
 * The raw `node:http` floor: reads the body, `JSON.parse`s it, answers with
 * {@link floorAnswerer} in one `res.end` with `Content-Length`. In `session` mode
 * `initialize` mints an `Mcp-Session-Id` and every other request must carry a known one
 * (404 otherwise), so the floor pays a session lookup like the real servers.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { announce, exitOnSignal, readBody, targetArgs } from './common.js';
import { floorAnswerer } from './floorCore.js';

const args = targetArgs();
const answer = floorAnswerer(args.tools);
const sessions = new Map<string, { readonly created: number }>();

const server = createServer((req, res) => {
  if (req.method !== 'POST') {
    res.writeHead(req.method === 'DELETE' ? 200 : 405).end();
    return;
  }
  readBody(req).then(
    (text) => {
      const message = JSON.parse(text) as Record<string, unknown>;
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (args.mode === 'session') {
        if (message['method'] === 'initialize') {
          const id = randomUUID();
          sessions.set(id, { created: Date.now() });
          headers['mcp-session-id'] = id;
        } else if (!sessions.has(String(req.headers['mcp-session-id']))) {
          res.writeHead(404).end();
          return;
        }
      }
      const reply = answer(message);
      if (reply === undefined) {
        res.writeHead(202).end();
        return;
      }
      const body = JSON.stringify(reply);
      headers['content-length'] = String(Buffer.byteLength(body));
      res.writeHead(200, headers).end(body);
    },
    () => res.writeHead(400).end(),
  );
});
exitOnSignal();
announce(server);
