// The error texts of the CLI: each failing case runs for real and the whole message is
// compared, so every failure says what happened and what to do, once.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { listen, type ListeningServer } from '../../../src/adapters/nodeHttp.js';
import { explainFailure, schemelessUrl, serverReason } from '../../../src/cli/clientErrors.js';
import { createEverythingServer } from '../../../src/demo/everything/server.js';
import { createStreamableHttpHandler } from '../../../src/transport/http/server/server.js';
import { McpError, McpErrorCode } from '../../../src/util/errors.js';
import { cli } from './cliProcess.js';

let legacy: ListeningServer;
let strictHost: ListeningServer;
let protectedServer: Server;
let protectedUrl: string;

before(async () => {
  legacy = await listen(createStreamableHttpHandler(createEverythingServer({ watchIntervalMs: 0 }), { path: '/mcp', legacySse: { path: '/sse', messagesPath: '/messages' } }), { port: 0, host: '127.0.0.1' });
  strictHost = await listen(createStreamableHttpHandler(createEverythingServer({ watchIntervalMs: 0 }), { path: '/mcp', allowedHosts: ['mcp.example.com'] }), { port: 0, host: '127.0.0.1' });
  // What an OAuth-protected MCP server answers a request without a token.
  protectedServer = createServer((req, res) => {
    req.resume();
    res.writeHead(401, { 'www-authenticate': 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"', 'content-type': 'application/json' });
    res.end('{"error":"invalid_token"}');
  });
  await new Promise<void>((resolve) => protectedServer.listen(0, '127.0.0.1', resolve));
  const address = protectedServer.address();
  protectedUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/mcp`;
});

after(async () => {
  await legacy.close();
  await strictHost.close();
  await new Promise((resolve) => protectedServer.close(resolve));
});

describe('CLI error texts (run for real)', () => {
  it('a URL without a scheme: not spawned as a command, the URL it means is named (exit 2)', async () => {
    const { code, stderr } = await cli(['tools', '127.0.0.1:39101/mcp']);
    assert.equal(code, 2);
    assert.equal(stderr.split('\n')[0], 'switchboard tools: "127.0.0.1:39101/mcp" has no scheme: write http://127.0.0.1:39101/mcp');
    assert.doesNotMatch(stderr, /spawn|ENOENT/);
  });

  it('HTTP 401: says authorization is required and to add --oauth', async () => {
    const { code, stderr } = await cli(['tools', protectedUrl]);
    assert.equal(code, 1);
    assert.equal(stderr, `switchboard tools: ${protectedUrl} requires authorization (HTTP 401): add --oauth to sign in\n`);
  });

  it('HTTP 405 on an /sse URL: says it is a legacy HTTP+SSE endpoint and to add --legacy-sse', async () => {
    const sse = new URL('/sse', legacy.url).href;
    const { code, stderr } = await cli(['tools', sse]);
    assert.equal(code, 1);
    assert.equal(stderr, `switchboard tools: ${sse} does not accept POST (HTTP 405): it looks like a legacy HTTP+SSE endpoint; add --legacy-sse\n`);
  });

  it("HTTP 403: shows the server's reason (the Host header is not allowed) and the server-side fix", async () => {
    const url = new URL('/mcp', strictHost.url).href;
    const { code, stderr } = await cli(['call', url, 'echo', '{"message":"x"}']);
    assert.equal(code, 1);
    assert.equal(stderr, `switchboard call: ${url} refused the request (HTTP 403): the Host header is not allowed (the server must list this host name, e.g. switchboard everything --allowed-host <name>)\n`);
  });

  it('a stdio command that does not exist: one line, no errno dump', async () => {
    const { code, stderr } = await cli(['tools', 'no-such-mcp-server-command --flag']);
    assert.equal(code, 1);
    assert.equal(stderr, 'switchboard tools: could not start "no-such-mcp-server-command": no such command (is it installed and on PATH?)\n');
  });

  it('a stdio server that exits with code 3: the exit said once', async () => {
    const { code, stderr } = await cli(['tools', `${JSON.stringify(process.execPath)} -e process.exit(3)`, '--log-level', 'error']);
    assert.equal(code, 1);
    assert.equal(stderr, 'switchboard tools: The connection closed: The server process exited with code 3\n');
  });

  it('an HTTP URL where nothing listens: says so and what to do, no "fetch failed: fetch failed"', async () => {
    const closed = await listen(createStreamableHttpHandler(createEverythingServer({ watchIntervalMs: 0 }), { path: '/mcp' }), { port: 0, host: '127.0.0.1' });
    const url = new URL('/mcp', closed.url).href;
    await closed.close();
    const { code, stderr } = await cli(['tools', url]);
    assert.equal(code, 1);
    assert.equal(stderr, `switchboard tools: nothing is listening at ${url} (connection refused): start the server, or check the host and port\n`);
  });

  it('a port already in use: one line, not a stack trace', async () => {
    const port = new URL(legacy.url).port;
    const { code, stderr } = await cli(['everything', '--port', port, '--log-level', 'error']);
    assert.equal(code, 1);
    assert.equal(stderr, `switchboard everything: port ${port} on 127.0.0.1 is already in use: stop what runs there, or choose another port with --port N (0 picks a free one)\n`);
  });
});

describe('explainFailure and friends', () => {
  const status = (code: number, body: string): McpError =>
    new McpError(McpErrorCode.SendFailed, 'Could not send request initialize', { cause: new McpError(McpErrorCode.HttpStatus, `HTTP ${code}: x`, { cause: { status: code, body } }) });

  it('finds the status deep in the cause chain; with --oauth a 401 does not suggest --oauth again', () => {
    const again = explainFailure(status(401, '{"error":"invalid_token","error_description":"audience mismatch"}'), { url: 'https://m.example/mcp', options: { oauth: true } }) as Error;
    assert.equal(again.message, 'https://m.example/mcp still refuses the request after authorization (HTTP 401): audience mismatch');
    const origin = explainFailure(status(403, '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request: the Origin header is not allowed"}}'), { options: {} }) as Error;
    assert.equal(origin.message, 'the server refused the request (HTTP 403): the Origin header is not allowed (the server must list this origin, e.g. switchboard everything --allowed-origin <origin>)');
  });

  it("the gateway's own 401 (no resource metadata) suggests its bearer token and the token file, never --oauth", () => {
    const gateway = new McpError(McpErrorCode.SendFailed, 'Could not send request initialize', {
      cause: new McpError(McpErrorCode.HttpStatus, 'HTTP 401: x', { cause: { status: 401, body: '{"error":"invalid_token","error_description":"a valid bearer token is required (see the gateway-token file in the state folder)"}', wwwAuthenticate: 'Bearer error="invalid_token"' } }),
    });
    const message = (explainFailure(gateway, { url: 'http://127.0.0.1:8080/mcp', options: {} }) as Error).message;
    assert.doesNotMatch(message, /--oauth/);
    assert.match(message, /requires a bearer token \(HTTP 401\): a valid bearer token is required/);
    assert.match(message, /--header "Authorization: Bearer \$\(cat \.switchboard\/gateway-token\)"/);
  });

  it('a 405 not on /sse, or with --legacy-sse already, gets no --legacy-sse hint', () => {
    assert.doesNotMatch((explainFailure(status(405, ''), { url: 'http://h/mcp', options: {} }) as Error).message, /--legacy-sse/);
    assert.doesNotMatch((explainFailure(status(405, ''), { url: 'http://h/sse', options: { 'legacy-sse': true } }) as Error).message, /--legacy-sse/);
  });

  it('other errors pass through unchanged', () => {
    const plain = new Error('boom');
    assert.equal(explainFailure(plain, { options: {} }), plain);
  });

  it('schemelessUrl: host:port forms only; serverReason: JSON-RPC message, OAuth description or first line', () => {
    assert.equal(schemelessUrl('localhost:3000/mcp'), 'http://localhost:3000/mcp');
    assert.equal(schemelessUrl('[::1]:8080'), 'http://[::1]:8080');
    assert.equal(schemelessUrl('api.example.com:8443/mcp'), 'https://api.example.com:8443/mcp');
    assert.equal(schemelessUrl('npx -y server'), undefined);
    assert.equal(schemelessUrl('./server.js'), undefined);
    assert.equal(serverReason('{"error":{"message":"nope"}}'), 'nope');
    assert.equal(serverReason('Forbidden\nmore'), 'Forbidden');
    assert.equal(serverReason(''), undefined);
  });
});
