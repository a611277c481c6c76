// switchboard.servers.<id>.auth and .tenant: one spelling, strict, remote servers only; a change
// of either is held for approval on reload; the parser and the published JSON Schema agree.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ConfigError, parseConfig } from '../../../src/host/config.js';
import { weakeningChanges } from '../../../src/host/configChanges.js';
import { compileJsonSchema } from '../../../src/protocol/jsonSchema.js';

const schema = compileJsonSchema(JSON.parse(readFileSync(new URL('../../../schemas/switchboard.config.schema.json', import.meta.url), 'utf8')) as Record<string, unknown>);
const remote = (options: Record<string, unknown>): unknown => ({ mcpServers: { gh: { url: 'https://mcp.example.com/mcp' } }, switchboard: { servers: { gh: options } } });
const parse = (config: unknown, env: Record<string, string> = {}) => parseConfig(JSON.stringify(config), { file: '/cfg/switchboard.json', env });
const schemaAccepts = async (config: unknown): Promise<boolean> => {
  await schema.ready;
  return (await schema.validate(config)).ok;
};
const T = { timeout: 10_000 };

describe('host/config: servers.<id>.auth', () => {
  it('absent is shared; "shared" and "per-user" as strings; token-exchange as an object with a ${env:} secret', T, async () => {
    assert.equal(parse(remote({})).servers[0]?.options.auth, undefined);
    assert.deepEqual(parse(remote({ auth: 'per-user' })).servers[0]?.options.auth, { mode: 'per-user' });
    assert.deepEqual(parse(remote({ auth: 'shared' })).servers[0]?.options.auth, { mode: 'shared' });
    const tx = { mode: 'token-exchange', issuer: 'https://as.example.com', clientId: 'gw', clientSecret: '${env:TX_SECRET}', scopes: ['repo'] };
    assert.deepEqual(parse(remote({ auth: tx }), { TX_SECRET: 's3cret' }).servers[0]?.options.auth, { ...tx, clientSecret: 's3cret' });
    for (const ok of [remote({ auth: 'per-user' }), remote({ auth: tx }), remote({ auth: 'per-user', tenant: 'acme' })]) assert.equal(await schemaAccepts(ok), true, JSON.stringify(ok));
  });

  it('refuses every other spelling, naming the field', T, async () => {
    const cases: [unknown, string][] = [
      [remote({ auth: 'peruser' }), '$.switchboard.servers.gh.auth'],
      [remote({ auth: { mode: 'per-user' } }), '$.switchboard.servers.gh.auth.mode'],
      [remote({ auth: { mode: 'token-exchange', clientId: 'gw' } }), '$.switchboard.servers.gh.auth'],
      [remote({ auth: { mode: 'token-exchange', issuer: 'https://a', tokenEndpoint: 'https://a/t', clientId: 'gw' } }), '$.switchboard.servers.gh.auth'],
      [remote({ auth: { mode: 'token-exchange', issuer: 'http://as.example.com', clientId: 'gw' } }), '$.switchboard.servers.gh.auth.issuer'],
      [remote({ auth: { mode: 'token-exchange', issuer: 'https://as.example.com', clientId: 'gw', extra: 1 } }), '$.switchboard.servers.gh.auth.extra'],
      [remote({ auth: 7 }), '$.switchboard.servers.gh.auth'],
      [remote({ tenant: '' }), '$.switchboard.servers.gh.tenant'],
    ];
    for (const [config, path] of cases) {
      assert.throws(() => parse(config), (error) => error instanceof ConfigError && error.path === path, JSON.stringify(config));
      assert.equal(await schemaAccepts(config), false, JSON.stringify(config));
    }
  });

  it('literal-client-secret-in-the-file refused: only a ${env:NAME} reference', T, () => {
    const config = remote({ auth: { mode: 'token-exchange', issuer: 'https://as.example.com', clientId: 'gw', clientSecret: 'hunter2' } });
    assert.throws(() => parse(config), (error) => error instanceof ConfigError && error.path === '$.switchboard.servers.gh.auth.clientSecret' && !error.message.includes('hunter2'));
  });

  it('per-user-on-a-stdio-server refused (a stdio server has no authorization)', T, () => {
    const config = { mcpServers: { local: { command: 'node' } }, switchboard: { servers: { local: { auth: 'per-user' } } } };
    assert.throws(() => parse(config), (error) => error instanceof ConfigError && error.path === '$.switchboard.servers.local.auth');
  });

  it('auth-mode-changed-on-reload is held as a security change, both ways; tenant too', T, () => {
    const shared = parse(remote({}));
    const perUser = parse(remote({ auth: 'per-user' }));
    const tenant = parse(remote({ auth: 'per-user', tenant: 'acme' }));
    for (const [a, b] of [
      [shared, perUser],
      [perUser, shared],
    ] as const) {
      const changes = weakeningChanges(a, b);
      assert.ok(changes.some((c) => c.path === 'switchboard.servers.gh.auth'), JSON.stringify(changes));
    }
    assert.ok(weakeningChanges(tenant, perUser).some((c) => c.path === 'switchboard.servers.gh.tenant'));
    assert.deepEqual(weakeningChanges(perUser, parse(remote({ auth: 'per-user' }))), []);
  });
  describe('toolScopes', () => {
    const tx = (extra: Record<string, unknown>) => remote({ auth: { mode: 'token-exchange', issuer: 'https://as.example.com', clientId: 'gw', scopes: ['repo:read'], ...extra } });
    const at = '$.switchboard.servers.gh.auth';

    it('maps a tool\'s own name to its scopes; accepted by the parser and the schema alike', T, async () => {
      const config = tx({ toolScopes: { create_issue: ['repo:read', 'repo:write'], 'files.read': ['files:read'] } });
      const auth = parse(config).servers[0]?.options.auth;
      assert.deepEqual(auth?.mode === 'token-exchange' ? auth.toolScopes : undefined, { create_issue: ['repo:read', 'repo:write'], 'files.read': ['files:read'] });
      assert.equal(await schemaAccepts(config), true);
    });

    it('tool-named-__proto__ is kept as a tool (an own entry), never the prototype', T, () => {
      const auth = parseConfig('{"mcpServers":{"gh":{"url":"https://mcp.example.com/mcp"}},"switchboard":{"servers":{"gh":{"auth":{"mode":"token-exchange","issuer":"https://as.example.com","clientId":"gw","toolScopes":{"__proto__":["x:y"]}}}}}}', { file: '/cfg/switchboard.json', env: {} }).servers[0]?.options.auth;
      const toolScopes = auth?.mode === 'token-exchange' ? auth.toolScopes : undefined;
      assert.ok(toolScopes !== undefined && Object.hasOwn(toolScopes, '__proto__'));
      assert.equal(Object.getPrototypeOf(toolScopes), Object.prototype);
    });

    it('refuses a scope that is no RFC 6749 scope-token, an empty list, an empty tool name or a non-object, naming the field (parser and schema)', T, async () => {
      const cases: [unknown, string][] = [
        [tx({ toolScopes: { create_issue: ['repo:read repo:write'] } }), `${at}.toolScopes.create_issue[0]`],
        [tx({ toolScopes: { create_issue: ['repo"write'] } }), `${at}.toolScopes.create_issue[0]`],
        [tx({ toolScopes: { create_issue: ['repo\\write'] } }), `${at}.toolScopes.create_issue[0]`],
        [tx({ toolScopes: { create_issue: ['r\u00e9po'] } }), `${at}.toolScopes.create_issue[0]`],
        [tx({ toolScopes: { create_issue: [''] } }), `${at}.toolScopes.create_issue[0]`],
        [tx({ toolScopes: { create_issue: [] } }), `${at}.toolScopes.create_issue`],
        [tx({ toolScopes: { create_issue: 'repo:write' } }), `${at}.toolScopes.create_issue`],
        [tx({ toolScopes: { '': ['repo:read'] } }), `${at}.toolScopes[""]`],
        [tx({ toolScopes: ['repo:read'] }), `${at}.toolScopes`],
        [tx({ scopes: ['repo read'] }), `${at}.scopes[0]`],
      ];
      for (const [config, path] of cases) {
        assert.throws(() => parse(config), (error) => error instanceof ConfigError && error.path === path, JSON.stringify(config));
        assert.equal(await schemaAccepts(config), false, JSON.stringify(config));
      }
    });

    it('tool-scopes-widened-on-reload is held as a security change naming the tool; unchanged is not', T, () => {
      const before = parse(tx({ toolScopes: { create_issue: ['repo:write'] } }));
      for (const after of [tx({ toolScopes: { create_issue: ['repo:write', 'admin'] } }), tx({}), tx({ toolScopes: { create_issue: ['repo:write'], delete_repo: ['admin'] } })]) {
        const changes = weakeningChanges(before, parse(after));
        assert.ok(changes.some((c) => c.path === 'switchboard.servers.gh.auth' && /token-exchange settings changed .*tools "(create_issue|delete_repo)"/.test(c.reason)), JSON.stringify(changes));
      }
      assert.deepEqual(weakeningChanges(before, parse(tx({ toolScopes: { create_issue: ['repo:write'] } }))), []);
    });
  });
});
