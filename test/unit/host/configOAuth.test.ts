// gateway.auth { oauth }: https URLs, plain http only for a loopback (development) issuer or JWKS;
// the parser and the published JSON Schema agree.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ConfigError, parseConfig } from '../../../src/host/config.js';
import { compileJsonSchema } from '../../../src/protocol/jsonSchema.js';

const schema = compileJsonSchema(JSON.parse(readFileSync(new URL('../../../schemas/switchboard.config.schema.json', import.meta.url), 'utf8')) as Record<string, unknown>);
const withAuth = (oauth: Record<string, unknown>): unknown => ({ mcpServers: {}, switchboard: { gateway: { auth: { oauth } } } });
const parse = (config: unknown) => parseConfig(JSON.stringify(config), { file: '/cfg/switchboard.json', env: {} });
const schemaAccepts = async (config: unknown): Promise<boolean> => {
  await schema.ready;
  return (await schema.validate(config)).ok;
};

describe('host/config: gateway OAuth URLs', () => {
  it('accepts an https issuer and a loopback http one (the dev authorization server)', async () => {
    for (const issuer of ['https://as.example.com', 'http://127.0.0.1:9000', 'http://localhost:9000/tenant']) {
      const config = withAuth({ issuer, audience: 'https://gw.example.com/mcp' });
      assert.deepEqual(parse(config).gateway.auth, { kind: 'oauth', issuer, audience: 'https://gw.example.com/mcp', jwksUri: undefined, dpop: undefined });
      assert.equal(await schemaAccepts(config), true, issuer);
    }
  });

  it('downgrade: a plain-http issuer or JWKS on a non-loopback host is refused, naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ issuer: 'http://as.example.com', audience: 'a' }, '$.switchboard.gateway.auth.oauth.issuer'],
      [{ issuer: 'http://127.0.0.1.evil.test', audience: 'a' }, '$.switchboard.gateway.auth.oauth.issuer'],
      [{ issuer: 'https://as.example.com', audience: 'a', jwksUri: 'http://as.example.com/jwks' }, '$.switchboard.gateway.auth.oauth.jwksUri'],
    ];
    for (const [oauth, path] of cases) {
      assert.throws(() => parse(withAuth(oauth)), (error) => error instanceof ConfigError && error.path === path, JSON.stringify(oauth));
      assert.equal(await schemaAccepts(withAuth(oauth)), false, JSON.stringify(oauth));
    }
  });

  it('dpop: true, or { required, nonce }; anything else is refused, naming the field', async () => {
    const base = { issuer: 'https://as.example.com', audience: 'a' };
    assert.deepEqual((parse(withAuth({ ...base, dpop: true })).gateway.auth as { dpop: unknown }).dpop, { required: false, nonce: false });
    assert.deepEqual((parse(withAuth({ ...base, dpop: { required: true, nonce: true } })).gateway.auth as { dpop: unknown }).dpop, { required: true, nonce: true });
    assert.equal((parse(withAuth({ ...base, dpop: false })).gateway.auth as { dpop: unknown }).dpop, undefined);
    for (const dpop of [true, false, {}, { required: true }, { nonce: true }]) assert.equal(await schemaAccepts(withAuth({ ...base, dpop })), true, JSON.stringify(dpop));
    const bad: [unknown, string][] = [
      ['yes', '$.switchboard.gateway.auth.oauth.dpop'],
      [{ required: 'yes' }, '$.switchboard.gateway.auth.oauth.dpop.required'],
      [{ nonce: 1 }, '$.switchboard.gateway.auth.oauth.dpop.nonce'],
      [{ replayCache: 'memory' }, '$.switchboard.gateway.auth.oauth.dpop'],
    ];
    for (const [dpop, path] of bad) {
      assert.throws(() => parse(withAuth({ ...base, dpop })), (error) => error instanceof ConfigError && error.path.startsWith(path), JSON.stringify(dpop));
      assert.equal(await schemaAccepts(withAuth({ ...base, dpop })), false, JSON.stringify(dpop));
    }
  });
});

describe('host/config: gateway.auth.oauth.console (the console sign-in of a person)', () => {
  const base = { issuer: 'https://as.example.com', audience: 'a' };
  const parseEnv = (config: unknown, env: Record<string, string>) => parseConfig(JSON.stringify(config), { file: '/cfg/switchboard.json', env });
  const consoleOf = (config: unknown, env: Record<string, string> = {}) => (parseEnv(config, env).gateway.auth as { console?: unknown }).console;

  it('true is a dynamically registered client; { clientId, clientSecret: ${env:…}, scopes } is read; absent or false turns it off', async () => {
    assert.deepEqual(consoleOf(withAuth({ ...base, console: true })), {});
    assert.deepEqual(consoleOf(withAuth({ ...base, console: { clientId: 'sb-console', clientSecret: '${env:CONSOLE_SECRET}', scopes: ['mcp:read'] } }), { CONSOLE_SECRET: 's3cret' }), { clientId: 'sb-console', clientSecret: 's3cret', scopes: ['mcp:read'] });
    assert.equal(consoleOf(withAuth(base)), undefined);
    assert.equal(consoleOf(withAuth({ ...base, console: false })), undefined);
    for (const console of [true, { clientId: 'sb-console', clientSecret: '${env:CONSOLE_SECRET}', scopes: ['mcp:read'] }]) assert.equal(await schemaAccepts(withAuth({ ...base, console })), true);
  });

  it('a literal client secret in the file, a secret without a client id, or an unknown key: refused, naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ clientId: 'sb-console', clientSecret: 'literal-secret' }, '$.switchboard.gateway.auth.oauth.console.clientSecret'],
      [{ clientSecret: '${env:CONSOLE_SECRET}' }, '$.switchboard.gateway.auth.oauth.console.clientSecret'],
      [{ clientId: 'sb-console', redirectUri: 'https://evil.example/cb' }, '$.switchboard.gateway.auth.oauth.console'],
    ];
    for (const [console, path] of cases) {
      assert.throws(() => parseEnv(withAuth({ ...base, console }), { CONSOLE_SECRET: 's' }), (error) => error instanceof ConfigError && error.path.startsWith(path), JSON.stringify(console));
    }
    assert.equal(await schemaAccepts(withAuth({ ...base, console: { clientId: 'sb-console', clientSecret: 'literal-secret' } })), false);
    assert.equal(await schemaAccepts(withAuth({ ...base, console: { clientId: 'sb-console', redirectUri: 'https://evil.example/cb' } })), false);
  });
});

describe('host/config: gateway.publicUrl', () => {
  const withPublic = (publicUrl: unknown): unknown => ({ mcpServers: {}, switchboard: { gateway: { publicUrl } } });

  it('accepts an https origin (kept as the origin) and plain http on a loopback host', async () => {
    for (const [given, kept] of [
      ['https://gw.example.com', 'https://gw.example.com'],
      ['https://gw.example.com/', 'https://gw.example.com'],
      ['https://gw.example.com:8443', 'https://gw.example.com:8443'],
      ['http://127.0.0.1:8765', 'http://127.0.0.1:8765'],
      ['http://localhost:3000/', 'http://localhost:3000'],
    ]) {
      assert.equal(parse(withPublic(given)).gateway.publicUrl, kept, given);
      assert.equal(await schemaAccepts(withPublic(given)), true, given);
    }
    assert.equal(parse({ mcpServers: {}, switchboard: { gateway: {} } }).gateway.publicUrl, undefined);
  });

  it('a bad public URL is refused at load, naming $.switchboard.gateway.publicUrl (plain http elsewhere, a path, a query, credentials, not a URL)', async () => {
    for (const bad of ['http://gw.example.com', 'http://127.0.0.1.evil.test', 'https://gw.example.com/prefix', 'https://gw.example.com/?next=x', 'https://gw.example.com#x', 'https://user:pw@gw.example.com', 'gw.example.com', 'javascript:alert(1)', '', 42]) {
      assert.throws(
        () => parse(withPublic(bad)),
        (error) => error instanceof ConfigError && error.path === '$.switchboard.gateway.publicUrl' && error.message.includes('$.switchboard.gateway.publicUrl'),
        JSON.stringify(bad),
      );
      assert.equal(await schemaAccepts(withPublic(bad)), false, JSON.stringify(bad));
    }
  });
});
