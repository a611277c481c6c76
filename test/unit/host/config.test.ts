import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_GATEWAY_LIMITS } from '../../../src/host/configLimits.js';
import { ConfigError, parseConfig } from '../../../src/host/config.js';
import { folderOf, isAbsolutePath, pathToFileUri, resolvePath } from '../../../src/host/configPaths.js';
import { isMcpError } from '../../../src/util/errors.js';
import { tokenDigest } from '../../../src/auth/resource/staticTokens.js';
import { badSemanticConfigs, badShapeConfigs, goodConfigs } from '../../fixtures/host/configFixtures.js';

const file = '/home/u/.config/switchboard/switchboard.json';
const parse = (config: unknown, env: Record<string, string | undefined> = {}) => parseConfig(JSON.stringify(config, null, 2), { file, env });

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    assert.ok(isMcpError(error, 'ERR_MCP_INVALID_CONFIG'));
    return error;
  }
  assert.fail('expected a ConfigError');
}

describe('host/config: parseConfig', () => {
  it('reads gateway.limits over the defaults', () => {
    const config = parseConfig(JSON.stringify({ switchboard: { gateway: { limits: { sessionsPerPrincipal: 5, headersTimeoutMs: 2000, listChangedWindowMs: 0 } } } }), { file: '/cfg/switchboard.json', env: {} });
    assert.deepEqual(config.gateway.limits, { ...DEFAULT_GATEWAY_LIMITS, sessionsPerPrincipal: 5, headersTimeoutMs: 2000, listChangedWindowMs: 0 });
  });

  it('resolves a Claude Desktop config with defaults filled in', () => {
    const config = parse({ mcpServers: { fs: { command: 'npx', args: ['-y', 'server-filesystem', '/tmp'] } } });
    assert.equal(config.servers.length, 1);
    const [fs] = config.servers;
    assert.equal(fs?.id, 'fs');
    assert.deepEqual(fs?.launch, { kind: 'stdio', command: 'npx', args: ['-y', 'server-filesystem', '/tmp'], env: {}, cwd: undefined });
    assert.equal(fs?.disabled, false);
    assert.deepEqual(fs?.options, { tools: { allow: undefined, deny: [] }, timeoutMs: 60000, maxConcurrency: 64, era: 'auto', oauth: undefined, roots: [], signature: 'warn' });
    assert.equal(config.pins, true);
    assert.equal(config.audit, true);
    assert.deepEqual(config.trustedKeys, []);
    assert.equal(config.namespacing, 'on-collision');
    assert.equal(config.separator, '__');
    assert.equal(config.exposure, 'all');
    assert.equal(config.stateDir, '/home/u/.config/switchboard/.switchboard');
    assert.deepEqual(config.gateway, { host: '127.0.0.1', port: 8765, path: '/mcp', auth: { kind: 'token' }, limits: DEFAULT_GATEWAY_LIMITS });
    assert.deepEqual(config.approvedLaunches, {});
    assert.deepEqual(config.warnings, []);
  });

  it('keeps servers in file order and reads every documented key', () => {
    const config = parse(goodConfigs[2]?.config);
    assert.deepEqual(config.servers.map((s) => s.id), ['fs', 'remote', 'legacy', 'off']);
    assert.deepEqual(config.servers[1]?.launch, { kind: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer x' } });
    assert.equal(config.servers[2]?.launch.kind, 'sse');
    assert.equal(config.servers[3]?.disabled, true);
    assert.deepEqual(config.servers[0]?.options.tools, { allow: ['read_*', 'list_directory'], deny: ['write_file'] });
    assert.equal(config.servers[0]?.options.era, 'stateful');
    assert.deepEqual(config.servers[1]?.options.oauth, { clientId: 'abc', scopes: ['mcp'], redirectPort: 39108 });
    assert.deepEqual(config.gateway.auth, { kind: 'oauth', issuer: 'https://as.example.com', audience: 'switchboard', jwksUri: 'https://as.example.com/jwks', dpop: undefined });
    assert.equal(config.stateDir, '/home/u/.config/switchboard/state');
    assert.equal(config.separator, '.');
    assert.equal(config.exposure, 'search');
    assert.equal(config.approvedLaunches['fs'], `sha256:${'a'.repeat(64)}`);
  });

  it('warns about unknown keys in an mcpServers entry and at the top level, keeping them in raw', () => {
    const config = parse({ globalShortcut: 'x', mcpServers: { a: { command: 'x', autoApprove: ['t'] } } });
    assert.deepEqual(config.servers[0]?.raw, { command: 'x', autoApprove: ['t'] });
    assert.equal(config.warnings.length, 2);
    assert.match(config.warnings[0] ?? '', /\$\.globalShortcut/);
    assert.match(config.warnings[1] ?? '', /\$\.mcpServers\.a\.autoApprove/);
  });

  it('resolves a relative cwd and stateDir against the config folder, keeps absolute ones', () => {
    const config = parse({ mcpServers: { a: { command: 'x', cwd: '../work' }, b: { command: 'y', cwd: '/abs' } }, switchboard: { stateDir: '/var/sb' } });
    assert.equal(config.servers[0]?.launch.kind === 'stdio' && config.servers[0].launch.cwd, '/home/u/.config/work');
    assert.equal(config.servers[1]?.launch.kind === 'stdio' && config.servers[1].launch.cwd, '/abs');
    assert.equal(config.stateDir, '/var/sb');
  });

  it('an approval for an unknown server is a warning, not an error', () => {
    const config = parse({ switchboard: { approvedLaunches: { gone: `sha256:${'0'.repeat(64)}` } } });
    assert.match(config.warnings[0] ?? '', /approvedLaunches\.gone/);
  });

  it('warns about plain http to a non-loopback host, not to localhost', () => {
    assert.equal(parse({ mcpServers: { a: { url: 'http://127.0.0.1:3000/mcp' } } }).warnings.length, 0);
    assert.match(parse({ mcpServers: { a: { url: 'http://example.com/mcp' } } }).warnings[0] ?? '', /unencrypted/);
  });

  for (const fixture of [...badShapeConfigs, ...badSemanticConfigs]) {
    it(`refuses: ${fixture.name} (path ${fixture.errorPath})`, () => {
      const error = configError(() => parse(fixture.config));
      assert.equal(error.path, fixture.errorPath);
      assert.ok(error.message.startsWith(`${file}: ${fixture.errorPath}: `), error.message);
    });
  }
});

describe('host/config: environment expansion', () => {
  it('expands ${env:NAME} in command, args, env values, cwd, url and header values; raw stays unexpanded', () => {
    const env = { BIN: 'node', ARG: 'a1', TOKEN: 's3cret', DIR: '/d', HOST: 'api.example.com', API: 'k' };
    const config = parse(
      {
        mcpServers: {
          a: { command: '${env:BIN}', args: ['--x=${env:ARG}'], env: { T: '${env:TOKEN}' }, cwd: '${env:DIR}/sub' },
          b: { url: 'https://${env:HOST}/mcp', headers: { Authorization: 'Bearer ${env:API}' } },
        },
      },
      env,
    );
    assert.deepEqual(config.servers[0]?.launch, { kind: 'stdio', command: 'node', args: ['--x=a1'], env: { T: 's3cret' }, cwd: '/d/sub' });
    assert.deepEqual(config.servers[1]?.launch, { kind: 'http', url: 'https://api.example.com/mcp', headers: { Authorization: 'Bearer k' } });
    assert.deepEqual(config.servers[0]?.raw['env'], { T: '${env:TOKEN}' });
  });

  it('uses a default when the variable is unset or empty, and $${ as a literal ${', () => {
    const config = parse({ mcpServers: { a: { command: 'x', args: ['${env:U:-dflt}', '${env:E:-dflt}', '$${env:U}', 'a$${b}'] } } }, { E: '' });
    assert.deepEqual(config.servers[0]?.launch.kind === 'stdio' && config.servers[0].launch.args, ['dflt', 'dflt', '${env:U}', 'a${b}']);
  });

  it('a missing variable without a default is an error naming the path and the variable', () => {
    const error = configError(() => parse({ mcpServers: { fs: { command: 'x', args: ['a', 'b', '${env:MISSING}'] } } }));
    assert.equal(error.path, '$.mcpServers.fs.args[2]');
    assert.match(error.message, /MISSING is not set/);
  });

  it('an unsupported or unclosed substitution is an error, not passed through', () => {
    assert.equal(configError(() => parse({ mcpServers: { a: { command: '${HOME}/x' } } })).path, '$.mcpServers.a.command');
    assert.match(configError(() => parse({ mcpServers: { a: { command: 'x', cwd: '${env:A' } } })).message, /unclosed/);
  });

  it('header injection: a CR/LF smuggled in through an env value is refused', () => {
    const error = configError(() => parse({ mcpServers: { a: { url: 'https://e.com', headers: { 'X-A': '${env:V}' } } } }, { V: 'ok\r\nX-Evil: 1' }));
    assert.equal(error.path, '$.mcpServers.a.headers.X-A');
  });

  it('argument truncation: a NUL byte in an expanded argument is refused', () => {
    assert.equal(configError(() => parse({ mcpServers: { a: { command: 'x', args: ['${env:V}'] } } }, { V: 'a\0b' })).path, '$.mcpServers.a.args[0]');
  });

  it('never echoes an expanded secret in an error message', () => {
    const error = configError(() => parse({ mcpServers: { a: { url: 'https://e.com', headers: { A: '${env:V}' } } } }, { V: 'topsecret\n' }));
    assert.doesNotMatch(error.message, /topsecret/);
  });
});

describe('host/config: JSON syntax errors', () => {
  it('gives the line and column of a trailing comma', () => {
    const error = configError(() => parseConfig('{\n  "mcpServers": {\n    "a": { "command": "x" },\n  }\n}', { file: 'sb.json', env: {} }));
    assert.equal(error.path, '$');
    assert.deepEqual([error.line, error.column], [4, 3]);
    assert.match(error.message, /^sb\.json:4:3: invalid JSON: /);
  });

  it('gives the position of a trailing comma in an array and of the end of truncated text', () => {
    const array = configError(() => parseConfig('{"mcpServers": {"a": {"command": "x", "args": [1,]}}}', { file: 'f', env: {} }));
    assert.deepEqual([array.line, array.column], [1, 50]);
    const truncated = configError(() => parseConfig('{\n"a": [', { file: 'f', env: {} }));
    assert.deepEqual([truncated.line, truncated.column], [2, 7]);
    assert.match(truncated.message, /unexpected end of input/);
  });

  it('does not quote the file text in the message (it may hold secrets)', () => {
    const error = configError(() => parseConfig('{"headers": {"A": "Bearer sk-live-123"}]', { file: 'f', env: {} }));
    assert.doesNotMatch(error.message, /sk-live/);
  });

  it('accepts a leading byte-order mark', () => {
    assert.equal(parseConfig('\ufeff{}', { file: 'f', env: {} }).servers.length, 0);
  });
});

describe('host/config: roots', () => {
  it('reads paths (relative to the config folder) and file:// URIs; a server\'s own roots override switchboard.roots', () => {
    const config = parse({
      mcpServers: { a: { command: 'x' }, b: { command: 'y' } },
      switchboard: { roots: ['projects/one', { path: '/srv/data dir', name: 'data' }], servers: { b: { roots: [{ uri: 'file:///opt/b' }] } } },
    });
    assert.deepEqual(config.servers[0]?.options.roots, [{ uri: 'file:///home/u/.config/switchboard/projects/one' }, { uri: 'file:///srv/data%20dir', name: 'data' }]);
    assert.deepEqual(config.servers[1]?.options.roots, [{ uri: 'file:///opt/b' }]);
  });

  it('turns Windows and UNC paths into file URIs', () => {
    assert.equal(pathToFileUri('C:\\Users\\u\\My Docs'), 'file:///C:/Users/u/My%20Docs');
    assert.equal(pathToFileUri('\\\\srv\\share\\x'), 'file://srv/share/x');
    assert.equal(pathToFileUri('/a/#b?c'), 'file:///a/%23b%3Fc');
  });

  it('refuses a root that is not a file:// URI or a folder path, naming its JSON path', () => {
    const refuses = (roots: unknown, path: string): void => {
      assert.throws(() => parse({ mcpServers: { a: { command: 'x' } }, switchboard: { servers: { a: { roots } } } }), (error: unknown) => error instanceof ConfigError && error.path === path);
    };
    refuses('file:///x', '$.switchboard.servers.a.roots');
    refuses(['https://evil.example/x'], '$.switchboard.servers.a.roots[0]');
    refuses([{ uri: 'file:///x', path: '/x' }], '$.switchboard.servers.a.roots[0]');
    refuses([{ name: 'n' }], '$.switchboard.servers.a.roots[0]');
    refuses([{ uri: 'file:///x', extra: 1 }], '$.switchboard.servers.a.roots[0].extra');
    refuses([''], '$.switchboard.servers.a.roots[0]');
  });
});

describe('host/config: path helpers', () => {
  it('folders, absolute paths and resolution for POSIX and Windows paths', () => {
    assert.equal(folderOf('/a/b/c.json'), '/a/b');
    assert.equal(folderOf('/c.json'), '/');
    assert.equal(folderOf('c.json'), '');
    assert.equal(folderOf('C:\\Users\\u\\sb.json'), 'C:\\Users\\u');
    assert.ok(isAbsolutePath('C:/x') && isAbsolutePath('\\\\srv\\share') && isAbsolutePath('/x'));
    assert.ok(!isAbsolutePath('x/y'));
    assert.equal(resolvePath('/a/b', './c/../d'), '/a/b/d');
    assert.equal(resolvePath('/a', '../../..'), '/');
    assert.equal(resolvePath('C:\\Users\\u', '.switchboard'), 'C:\\Users\\u\\.switchboard');
    assert.equal(resolvePath('', '.switchboard'), '.switchboard');
    assert.equal(resolvePath('', '../x'), '../x');
  });
});

describe('host/config: the scanner option', () => {
  const withScan = (scan: unknown): string => JSON.stringify({ mcpServers: { a: { command: 'x' } }, switchboard: { servers: { a: { scan } } } });
  it('reads switchboard.servers.<id>.scan (block, warn, off) and leaves it unset by default', () => {
    for (const mode of ['block', 'warn', 'off']) assert.equal(parseConfig(withScan(mode), { file: '/c/switchboard.json', env: {} }).servers[0]?.options.scan, mode);
    assert.equal(parseConfig(JSON.stringify({ mcpServers: { a: { command: 'x' } } }), { file: '/c/switchboard.json', env: {} }).servers[0]?.options.scan, undefined);
  });
  it('an unknown scan mode is an error naming its path (no silent fail-open)', () => {
    assert.throws(() => parseConfig(withScan('ignore'), { file: '/c/switchboard.json', env: {} }), /\$\.switchboard\.servers\.a\.scan/);
    assert.throws(() => parseConfig(withScan(false), { file: '/c/switchboard.json', env: {} }), /\$\.switchboard\.servers\.a\.scan/);
  });
});

describe('host/config: the audit switch', () => {
  const withAudit = (audit: unknown): string => JSON.stringify({ mcpServers: { a: { command: 'x' } }, switchboard: { audit } });
  it('reads switchboard.audit (true, false); on when absent', () => {
    assert.equal(parseConfig(withAudit(false), { file: '/c/switchboard.json', env: {} }).audit, false);
    assert.equal(parseConfig(withAudit(true), { file: '/c/switchboard.json', env: {} }).audit, true);
    assert.equal(parseConfig(JSON.stringify({ mcpServers: {} }), { file: '/c/switchboard.json', env: {} }).audit, true);
  });
  it('audit turned off by a typo ("off", 0, "false"): refused, naming its path (no silent loss of the trail)', () => {
    for (const value of ['off', 0, 'false', null]) {
      assert.throws(() => parseConfig(withAudit(value), { file: '/c/switchboard.json', env: {} }), /\$\.switchboard\.audit/);
    }
  });
  it('reads audit.durability (sync by default; batch when asked); an object turns the log on', () => {
    const read = (audit: unknown) => parseConfig(withAudit(audit), { file: '/c/switchboard.json', env: {} });
    assert.deepEqual([read(true).auditDurability, read({}).auditDurability, read({}).audit], ['sync', 'sync', true]);
    assert.deepEqual([read({ durability: 'batch' }).audit, read({ durability: 'batch' }).auditDurability], [true, 'batch']);
  });
  it('reads audit.syncIntervalMs with batch; refuses it with sync (every answer there waits for its own sync) and out of range', () => {
    const read = (audit: unknown) => parseConfig(withAudit(audit), { file: '/c/switchboard.json', env: {} });
    assert.equal(read({ durability: 'batch', syncIntervalMs: 50 }).auditSyncIntervalMs, 50);
    assert.equal(read({ durability: 'batch' }).auditSyncIntervalMs, undefined);
    assert.throws(() => read({ syncIntervalMs: 50 }), /\$\.switchboard\.audit\.syncIntervalMs.*only with "durability": "batch"/);
    assert.throws(() => read({ durability: 'sync', syncIntervalMs: 0 }), /\$\.switchboard\.audit\.syncIntervalMs/);
    for (const bad of [-1, 60_001, 1.5, '10']) assert.throws(() => read({ durability: 'batch', syncIntervalMs: bad }), /\$\.switchboard\.audit\.syncIntervalMs/);
  });
  it('reads audit.retention: keepDays and/or keepGB, the archive folder (default under stateDir, relative to the config folder)', () => {
    const read = (audit: unknown) => parseConfig(withAudit(audit), { file: '/c/switchboard.json', env: {} });
    assert.deepEqual(read({ retention: { keepDays: 30 } }).auditRetention, { keepDays: 30, archiveDir: '/c/.switchboard/audit-archive' });
    assert.deepEqual(read({ durability: 'batch', retention: { keepGB: 0.5, archiveDir: '../archive', segmentRecords: 50_000, intervalMinutes: 10 } }).auditRetention, { keepGB: 0.5, archiveDir: '/archive', segmentRecords: 50_000, intervalMinutes: 10 });
    assert.equal(read({}).auditRetention, undefined);
  });
  it('audit.retention that keeps nothing named, or out of range, or with an unknown key: refused, naming its path', () => {
    const read = (audit: unknown) => parseConfig(withAudit(audit), { file: '/c/switchboard.json', env: {} });
    assert.throws(() => read({ retention: {} }), /\$\.switchboard\.audit\.retention.*give keepDays, keepGB or both/);
    assert.throws(() => read({ retention: { archiveDir: '/a' } }), /\$\.switchboard\.audit\.retention/);
    for (const bad of [0, -1, 1.5, '30', 36_501]) assert.throws(() => read({ retention: { keepDays: bad } }), /\$\.switchboard\.audit\.retention\.keepDays/);
    for (const bad of [0, -1, '1', Number.NaN, 2_000_000]) assert.throws(() => read({ retention: { keepGB: bad } }), /\$\.switchboard\.audit\.retention\.keepGB/);
    assert.throws(() => read({ retention: { keepDays: 1, segmentRecords: 10 } }), /\$\.switchboard\.audit\.retention\.segmentRecords/);
    assert.throws(() => read({ retention: { keepDays: 1, keep: 5 } }), /\$\.switchboard\.audit\.retention\.keep/);
  });
  it('a weaker durability by a typo ("none", "async", an unknown key): refused, naming its path', () => {
    assert.throws(() => parseConfig(withAudit({ durability: 'none' }), { file: '/c/switchboard.json', env: {} }), /\$\.switchboard\.audit\.durability/);
    assert.throws(() => parseConfig(withAudit({ durability: 'async' }), { file: '/c/switchboard.json', env: {} }), /\$\.switchboard\.audit\.durability/);
    assert.throws(() => parseConfig(withAudit({ fsync: false }), { file: '/c/switchboard.json', env: {} }), /\$\.switchboard\.audit/);
  });
});

describe('host/config: gateway.auth.tokens', () => {
  const file = '/cfg/switchboard.json';
  const ALICE = 'alice-secret-token-0123456789abcdef';

  it('a ${env:…} token is expanded, hashed, and its clear value is nowhere in the parsed config', () => {
    const config = parseConfig(JSON.stringify({ switchboard: { gateway: { auth: { tokens: [{ name: 'alice', token: '${env:ALICE_TOKEN}', scopes: ['tools:call'] }, { name: 'ci', sha256: 'AB'.repeat(32) }] } } } }), {
      file,
      env: { ALICE_TOKEN: ALICE },
    });
    const auth = config.gateway.auth;
    assert.equal(auth.kind, 'token');
    assert.deepEqual(auth.kind === 'token' ? auth.tokens : undefined, [
      { name: 'alice', sha256: tokenDigest(ALICE), scopes: ['tools:call'] },
      { name: 'ci', sha256: 'ab'.repeat(32), scopes: [] },
    ]);
    assert.equal(JSON.stringify(config).includes(ALICE), false);
  });

  it('an unset variable names the path; tokens beside oauth are kept on the oauth kind', () => {
    assert.throws(
      () => parseConfig(JSON.stringify({ switchboard: { gateway: { auth: { tokens: [{ name: 'alice', token: '${env:NOPE}' }] } } } }), { file, env: {} }),
      (error: unknown) => error instanceof ConfigError && error.path === '$.switchboard.gateway.auth.tokens[0].token',
    );
    const both = parseConfig(JSON.stringify({ switchboard: { gateway: { auth: { tokens: [{ name: 'ci', sha256: 'ab'.repeat(32) }], oauth: { issuer: 'https://as.example.com', audience: 'a' } } } } }), { file, env: {} });
    assert.equal(both.gateway.auth.kind, 'oauth');
    assert.deepEqual(both.gateway.auth.kind === 'oauth' ? both.gateway.auth.tokens?.map((t) => t.name) : undefined, ['ci']);
  });
});
