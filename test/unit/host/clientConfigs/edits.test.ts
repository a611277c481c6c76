// Wrap and unwrap when the file is not the untouched fixture: edits made since wrap, servers
// added beside the gateway, files without a server section, CRLF files, Zed's flat form, and
// Codex layouts the table editor must refuse rather than damage.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse as parseJsonc } from 'jsonc-parser';
import { parse as tomlParse } from 'smol-toml';
import { codexFormat } from '../../../../src/host/clientConfigs/codex.js';
import { mcpServersFormat } from '../../../../src/host/clientConfigs/mcpServersJson.js';
import { tomlBlocks } from '../../../../src/host/clientConfigs/tomlBlocks.js';
import { ClientConfigError, type GatewayLaunch } from '../../../../src/host/clientConfigs/types.js';
import { zedFormat } from '../../../../src/host/clientConfigs/zed.js';

const launch: GatewayLaunch = { command: '/opt/node/bin/node', args: ['/opt/switchboard/dist/cli/main.js', 'gateway', '--stdio', '--config', '/home/me/switchboard.json'] };
/** smol-toml makes null-prototype tables; compare them as plain objects. */
const parseToml = (text: string): Record<string, unknown> => structuredClone(tomlParse(text)) as Record<string, unknown>;
const json = (text: string): Record<string, unknown> => parseJsonc(text, [], { allowTrailingComma: true }) as Record<string, unknown>;

describe('JSON formats: wrap/unwrap around other edits', () => {
  const desktop = mcpServersFormat('claude-desktop');
  const original = '{\n  "mcpServers": {\n    "a": { "command": "a-mcp" }\n  },\n  "globalShortcut": "Ctrl+Space"\n}\n';

  it('keeps an edit made elsewhere in the file since wrap', () => {
    const wrapped = desktop.wrap(original, 'c.json', launch).text;
    const edited = wrapped.replace('Ctrl+Space', 'Alt+Space');
    const out = desktop.unwrap(edited, 'c.json', original).text;
    assert.equal(out, original.replace('Ctrl+Space', 'Alt+Space'));
  });

  it('keeps a server added beside the gateway and brings the originals back next to it', () => {
    const wrapped = desktop.wrap(original, 'c.json', launch).text;
    const added = wrapped.replace('"switchboard": {', '"b": { "command": "b-mcp" },\n    "switchboard": {');
    const out = json(desktop.unwrap(added, 'c.json', original).text);
    assert.deepEqual(out['mcpServers'], { b: { command: 'b-mcp' }, a: { command: 'a-mcp' } });
  });

  it('adds the section when the file has none, and removes it again on unwrap (same bytes)', () => {
    const bare = '{\n  "globalShortcut": "Ctrl+Space"\n}\n';
    const wrapped = desktop.wrap(bare, 'c.json', launch).text;
    assert.deepEqual(json(wrapped)['mcpServers'], { switchboard: { command: launch.command, args: launch.args } });
    const out = desktop.unwrap(wrapped, 'c.json', bare).text;
    assert.equal(out, bare);
  });

  it('keeps CRLF line endings and gives a CRLF file back byte for byte', () => {
    const crlf = original.replace(/\n/g, '\r\n');
    const wrapped = desktop.wrap(crlf, 'c.json', launch).text;
    assert.ok(!/[^\r]\n/.test(wrapped), 'a bare LF was written into a CRLF file');
    assert.equal(desktop.unwrap(wrapped, 'c.json', crlf).text, crlf);
  });

  it('writes the gateway in Zed’s flat form when the file uses it', () => {
    const flat = '{ "context_servers": { "k": { "source": "custom", "command": "uvx", "args": ["k"] } } }';
    const wrapped = json(zedFormat().wrap(flat, 'settings.json', launch).text);
    assert.deepEqual(wrapped['context_servers'], { switchboard: { source: 'custom', command: launch.command, args: launch.args } });
  });

  it('refuses a server section that is not an object, naming the file', () => {
    assert.throws(() => desktop.parse('{ "mcpServers": [1] }', 'c.json'), (e: unknown) => e instanceof ClientConfigError && e.message.startsWith('c.json:1:17: '));
  });
});

describe('Codex TOML: table editing', () => {
  const codex = codexFormat();
  const original = '# top\nmodel = "o3"\n\n[mcp_servers.a]\ncommand = "a-mcp"\n\n[profiles.x]\nmodel = "m"\n';

  it('keeps an edit made elsewhere in the file since wrap', () => {
    const wrapped = codex.wrap(original, 'config.toml', launch).text;
    const edited = wrapped.replace('model = "m"', 'model = "n" # changed');
    assert.equal(codex.unwrap(edited, 'config.toml', original).text, original.replace('model = "m"', 'model = "n" # changed'));
  });

  it('keeps a server table added since wrap', () => {
    const wrapped = codex.wrap(original, 'config.toml', launch).text;
    const added = wrapped.replace('[profiles.x]', '[mcp_servers.b]\ncommand = "b-mcp"\n\n[profiles.x]');
    const doc = parseToml(codex.unwrap(added, 'config.toml', original).text);
    assert.deepEqual(doc['mcp_servers'], { a: { command: 'a-mcp' }, b: { command: 'b-mcp' } });
  });

  it('appends the gateway table to a file without servers, and takes it out again (same bytes)', () => {
    const bare = 'model = "o3"\n';
    const wrapped = codex.wrap(bare, 'config.toml', launch).text;
    assert.deepEqual(parseToml(wrapped)['mcp_servers'], { switchboard: { command: launch.command, args: launch.args } });
    assert.equal(codex.unwrap(wrapped, 'config.toml', bare).text, bare);
  });

  it('replaces a whole [mcp_servers] table of inline tables', () => {
    const inline = 'model = "o3"\n\n[mcp_servers]\na = { command = "a-mcp" }\nb = { url = "https://b.example/mcp" }\n';
    const wrapped = codex.wrap(inline, 'config.toml', launch).text;
    assert.deepEqual(Object.keys(parseToml(wrapped)['mcp_servers'] as object), ['switchboard']);
    assert.equal(codex.unwrap(wrapped, 'config.toml', inline).text, inline);
  });

  it('refuses servers written as dotted keys outside their tables, leaving the text as it was', () => {
    const dotted = 'mcp_servers.a.command = "a-mcp"\nmodel = "o3"\n';
    assert.throws(() => codex.wrap(dotted, 'config.toml', launch), (e: unknown) => e instanceof ClientConfigError && /cannot edit safely/.test(e.message));
  });

  it('finds headers only outside strings and multi-line arrays', () => {
    const text = 'a = """\n[not.a.header]\n"""\nb = [\n  ["nested"],\n]\n[real]\nx = 1\n[[list."q.k"]]\n';
    assert.deepEqual(
      tomlBlocks(text).map((b) => b.keys),
      [['real'], ['list', 'q.k']],
    );
  });
});
