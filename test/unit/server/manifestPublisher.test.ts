// McpServer signs its own lists when given a key: the JWS in list `_meta` and at the
// well-known path over HTTP verifies and covers exactly the listed definitions.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpClient } from '../../../src/client/mcpClient.js';
import { MANIFEST_META_KEY, definitionDigest, generateSigningKey, importSigningKey, manifestEnvelopeOf, readManifest } from '../../../src/protocol/manifest.js';
import { McpServer } from '../../../src/server/mcpServer.js';
import { createStreamableHttpHandler } from '../../../src/transport/http/server/server.js';
import { createInMemoryPair } from '../../../src/transport/memory.js';

async function signedServer(): Promise<McpServer> {
  const key = await importSigningKey((await generateSigningKey()).privateJwk);
  const server = new McpServer({ name: 'signed', version: '1.0.0' }, { signing: { key, now: () => 1_700_000_000_000 } });
  server.tool('echo', { description: 'Echoes', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, (a) => String(a['text']));
  server.prompt('greet', { description: 'Greets' }, () => ({ messages: [] }));
  return server;
}

describe('server/manifestPublisher', () => {
  it('puts a verifying manifest over the listed definitions in the _meta of tools/list and prompts/list, re-signed after a change', async () => {
    const server = await signedServer();
    const [clientSide, serverSide] = createInMemoryPair();
    await server.connect(serverSide);
    const client = new McpClient({ name: 't', version: '1' });
    await client.connect(clientSide);
    const page = await client.listToolsPage(undefined, { fresh: false });
    const envelope = manifestEnvelopeOf(page.result);
    assert.ok(envelope !== undefined, `${MANIFEST_META_KEY} present`);
    const manifest = await readManifest(envelope.jws);
    assert.equal(manifest.payload.sub, 'signed');
    assert.equal(manifest.payload.iat, 1_700_000_000);
    assert.deepEqual(manifest.payload.tools, { echo: definitionDigest(page.items[0]) });
    const prompts = await client.listPromptsPage(undefined, { fresh: false });
    assert.equal(manifestEnvelopeOf(prompts.result)?.jws, envelope.jws, 'one manifest for all lists');
    server.tool('second', {}, () => 'x');
    const after = await readManifest(manifestEnvelopeOf((await client.listToolsPage(undefined, { fresh: false })).result)?.jws ?? '');
    assert.deepEqual(Object.keys(after.payload.tools), ['echo', 'second']);
    await client.close();
  });

  it('serves the same JWS at /.well-known/mcp-manifest over HTTP (public, application/jose); an unsigned server has none there', async () => {
    const server = await signedServer();
    const handler = createStreamableHttpHandler(server, { path: '/mcp' });
    const response = await handler.fetch(new Request('http://localhost/.well-known/mcp-manifest/mcp', { headers: { host: 'localhost' } }));
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/jose');
    const manifest = await readManifest(await response.text());
    assert.deepEqual(Object.keys(manifest.payload.prompts), ['greet']);
    const unsigned = createStreamableHttpHandler(new McpServer({ name: 'plain', version: '1' }), { path: '/mcp' });
    assert.equal((await unsigned.fetch(new Request('http://localhost/.well-known/mcp-manifest', { headers: { host: 'localhost' } }))).status, 404);
    await handler.close();
    await unsigned.close();
  });
});
