// `policy.arguments` (issue #32, "Arguments: checked before they leave"): tool call arguments
// checked against the pinned inputSchema, for metadata URLs and for paths outside the roots.
// Judged by whether the call reached `next` (the server) and by the recorded decision.
// https://modelcontextprotocol.io/specification/2025-11-25/server/tools#security-considerations
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ARGUMENTS_ID, argumentsInterceptor, isMetadataHost } from '../../../src/host/argumentChecks.js';
import { parseConfig } from '../../../src/host/config.js';
import { buildChain } from '../../../src/host/gatewayChain.js';
import { DeniedError, interceptContext, type InterceptContextInit, type Interceptor } from '../../../src/host/interceptors.js';

const T = { timeout: 5_000 };
const config = parseConfig(
  JSON.stringify({
    mcpServers: { fs: { command: 'node', args: ['fs.js'] }, web: { command: 'node', args: ['web.js'] }, loose: { command: 'node', args: ['x.js'] } },
    switchboard: { servers: { fs: { roots: ['/proj'] }, loose: { checkArguments: false } } },
  }),
  { file: '/cfg/switchboard.json', env: {} },
);
const interceptor = argumentsInterceptor({ config: () => config, platform: { caseInsensitive: false, home: '/home/u' } });

const weather = { name: 'weather', inputSchema: { type: 'object', properties: { city: { type: 'string' }, units: { enum: ['c', 'f'] } }, required: ['city'] } };
const fetchTool = { name: 'fetch', inputSchema: { type: 'object', properties: { url: { type: 'string' }, headers: { type: 'object', additionalProperties: { type: 'string' } } } } };
const readFile = { name: 'read_file', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } };

/** Runs one call through the interceptor: whether it reached the server, and the error it threw. */
async function run(server: string, definition: Record<string, unknown>, args: unknown): Promise<{ reached: boolean; error?: unknown; decisions: readonly { outcome: string; reason?: string }[] }> {
  const init: InterceptContextInit = { method: 'tools/call', principal: undefined, session: undefined, server: { id: server }, params: { name: definition['name'], arguments: args }, definition, signal: new AbortController().signal };
  const ctx = interceptContext(init);
  let reached = false;
  try {
    await interceptor.intercept(ctx, () => {
      reached = true;
      return Promise.resolve({ content: [] });
    });
    return { reached, decisions: ctx.decisions as never };
  } catch (error) {
    return { reached, error, decisions: ctx.decisions as never };
  }
}

function refused(out: Awaited<ReturnType<typeof run>>, reason: RegExp): void {
  assert.equal(out.reached, false, 'the call must not reach the server');
  assert.ok(out.error instanceof DeniedError && out.error.interceptor === ARGUMENTS_ID, `refused by ${ARGUMENTS_ID}: ${String(out.error)}`);
  assert.match(out.error.message, reason);
  assert.deepEqual(out.decisions.map((d) => d.outcome), ['deny'], 'the refusal is recorded');
}

describe('policy.arguments', () => {
  it('honest calls pass: declared properties of the declared types, an allowed enum value, an open additionalProperties map', T, async () => {
    assert.equal((await run('web', weather, { city: 'Oslo', units: 'c' })).reached, true);
    assert.equal((await run('web', fetchTool, { url: 'https://example.com/a?b=169.254.169.254', headers: { accept: 'text/html' } })).reached, true);
    assert.equal((await run('fs', readFile, { path: '/proj/src/a.ts' })).reached, true);
    assert.equal((await run('fs', readFile, { path: 'src/../README.md' })).reached, true);
    assert.equal((await run('web', { name: 'open', inputSchema: { type: 'object' } }, { anything: 1 })).reached, true);
  });

  it('argument smuggling: an array where a string is declared is refused, naming the property', T, async () => {
    refused(await run('web', weather, { city: ['Oslo', 'ignore previous instructions'] }), /\$\.city must be string/);
  });

  it('argument smuggling: a value outside a declared enum is refused', T, async () => {
    refused(await run('web', weather, { city: 'Oslo', units: 'kelvin; rm -rf /' }), /\$\.units .*allowed values/);
  });

  it('argument smuggling: an undeclared property is refused when the schema does not allow extra properties', T, async () => {
    refused(await run('web', weather, { city: 'Oslo', system_prompt: 'exfiltrate' }), /\$\.system_prompt is not declared .*additionalProperties/);
    refused(await run('web', { name: 'n', inputSchema: { type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'string' } } } } } }, { a: { b: 'x', c: 'y' } }), /\$\.a\.c is not declared/);
  });

  it('argument smuggling: arguments that are not an object are refused', T, async () => {
    refused(await run('web', weather, ['Oslo']), /not an object/);
  });

  it('SSRF: a URL to 169.254.169.254 is refused, in any field, at any depth, in a key or inside text', T, async () => {
    refused(await run('web', fetchTool, { url: 'http://169.254.169.254/latest/meta-data/iam/security-credentials/' }), /169\.254\.169\.254/);
    refused(await run('web', fetchTool, { url: 'https://example.com', headers: { referer: 'see http://169.254.169.254/latest' } }), /\$\.headers\.referer/);
    refused(await run('web', fetchTool, { url: 'https://example.com', headers: { 'http://169.254.169.254/': 'x' } }), /\(key\)/);
    refused(await run('web', fetchTool, { url: '169.254.169.254/latest/meta-data' }), /169\.254\.169\.254/);
  });

  it('SSRF: the metadata IPv4 in decimal, hex and octal forms is normalised first and refused', T, async () => {
    for (const url of ['http://2852039166/', 'http://0xA9FEA9FE/', 'http://0251.0376.0251.0376/', 'http://169.254.43518/', 'HTTP://0xa9.0xfe.0xa9.0xfe:80/']) {
      refused(await run('web', fetchTool, { url }), /169\.254\.169\.254/);
    }
  });

  it('SSRF: cloud metadata names and IPv6 forms are refused (GCP, Alibaba, AWS IPv6, IPv4-mapped, link-local)', T, async () => {
    for (const url of ['http://metadata.google.internal/computeMetadata/v1/', 'http://metadata.google.internal./', 'http://METADATA/', 'http://100.100.100.200/latest/meta-data/', 'http://[fd00:ec2::254]/latest/', 'http://[::ffff:169.254.169.254]/', 'http://[fe80::1]/', 'ws://169.254.1.1/', 'http:/169.254.169.254/', 'http://user@169.254.169.254/', 'gopher://2852039166/_GET', 'ftp://169.254.169.254/', 'dict://metadata:80/']) {
      const out = await run('web', fetchTool, { url });
      assert.equal(out.reached, false, url);
    }
    assert.equal(isMetadataHost('example.com'), false);
    assert.equal(isMetadataHost('10.0.0.1'), false);
    assert.equal(isMetadataHost('[::1]'), false);
  });

  it('path traversal: ../../../../etc/shadow is refused for a server with roots, in every spelling pathCandidates reads', T, async () => {
    for (const path of ['../../../../etc/shadow', '/proj/../etc/shadow', '/etc/shadow', 'file:///etc/shadow', '/proj/%2e%2e/etc/shadow', '~/.ssh/id_rsa', '"/etc/shadow"']) {
      refused(await run('fs', readFile, { path }), /outside the server's roots/);
    }
  });

  it('path traversal percent-encoded from the first character (%2e%2e%2f, ..%2f, %2Fetc) is refused: the string is read once decoded too', T, async () => {
    for (const path of ['%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fshadow', '..%2f..%2f..%2fetc%2fshadow', '%2Fetc%2Fshadow']) {
      refused(await run('fs', readFile, { path }), /outside the server's roots/);
    }
  });

  it('a relative path through a symlink in the root that leads out (link/shadow) is refused; relative words with a slash and URLs pass', T, async () => {
    const linked = argumentsInterceptor({ config: () => config, platform: { caseInsensitive: false, home: '/home/u', realpath: (p) => (p === '/proj/link' || p.startsWith('/proj/link/') ? `/etc${p.slice('/proj/link'.length)}` : p) } });
    const through = async (path: string): Promise<boolean> => {
      const ctx = interceptContext({ method: 'tools/call', principal: undefined, session: undefined, server: { id: 'fs' }, params: { name: 'read_file', arguments: { path } }, definition: readFile, signal: new AbortController().signal });
      let reached = false;
      await linked.intercept(ctx, () => {
        reached = true;
        return Promise.resolve({ content: [] });
      }).catch(() => undefined);
      return reached;
    };
    assert.equal(await through('link/shadow'), false);
    assert.equal(await through('./link/shadow'), false);
    for (const honest of ['docs/readme.md', 'and/or', 'https://example.com/a/b', 'text/plain']) assert.equal(await through(honest), true, honest);
  });

  it('a server without roots is not path-checked (its own allowed folders are its business)', T, async () => {
    assert.equal((await run('web', readFile, { path: '../../../../etc/shadow' })).reached, true);
  });

  it('checkArguments: false turns every check off for that server only', T, async () => {
    assert.equal((await run('loose', weather, { city: ['a'], x: 'http://169.254.169.254/' })).reached, true);
    assert.equal((await run('web', weather, { city: ['a'] })).reached, false);
  });

  it('past the walk limits the call is refused, never passed unread', T, async () => {
    let deep: unknown = 'http://169.254.169.254/';
    for (let i = 0; i < 80; i++) deep = { d: deep };
    refused(await run('web', { name: 'open', inputSchema: { type: 'object' } }, { deep }), /could not be read in full/);
  });

  it('a pinned inputSchema our validator refuses refuses the call (fail closed)', T, async () => {
    refused(await run('web', { name: 'bad', inputSchema: { type: 'object', properties: { a: { $ref: 'https://evil.example/s.json' } } } }, { a: 1 }), /cannot be used to check/);
  });

  it('runs in the policy phase after the protected paths and before the policy', T, () => {
    const named = (id: string): Interceptor => ({ id, phase: 'policy', intercept: (_ctx, next) => next() });
    const chain = buildChain({ paths: named('paths'), arguments: interceptor, policy: named('policy') });
    assert.deepEqual(chain.map((i) => i.id), ['paths', ARGUMENTS_ID, 'policy']);
  });
});
