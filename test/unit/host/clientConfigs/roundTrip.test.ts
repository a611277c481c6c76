// Every client format, against fixtures we wrote: import gives the expected neutral servers;
// wrap leaves exactly the `switchboard` entry and nothing else changed; wrap again is a no-op;
// unwrap gives the original file back byte for byte; unwrap again is a no-op. Malformed text
// is a ClientConfigError naming the file and the position.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse as parseJsonc } from 'jsonc-parser';
import { parse as parseToml } from 'smol-toml';
import { codexFormat } from '../../../../src/host/clientConfigs/codex.js';
import { geminiFormat } from '../../../../src/host/clientConfigs/gemini.js';
import { mcpServersFormat } from '../../../../src/host/clientConfigs/mcpServersJson.js';
import { ClientConfigError, type ClientFormat, type GatewayLaunch, type ParseContext } from '../../../../src/host/clientConfigs/types.js';
import { vscodeFormat } from '../../../../src/host/clientConfigs/vscode.js';
import { windsurfFormat } from '../../../../src/host/clientConfigs/windsurf.js';
import { zedFormat } from '../../../../src/host/clientConfigs/zed.js';

const fixtures = new URL('../../../fixtures/clientConfigs/', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, fixtures), 'utf8');

const launch: GatewayLaunch = { command: '/opt/node/bin/node', args: ['/opt/switchboard/dist/cli/main.js', 'gateway', '--stdio', '--config', '/home/me/switchboard.json'] };
const plain = { command: launch.command, args: launch.args };

interface Case {
  readonly name: string;
  readonly file: string;
  readonly expected: string;
  readonly format: ClientFormat;
  readonly kind: 'json' | 'toml';
  /** Where the server map is in the parsed document. */
  readonly path: readonly string[];
  /** The raw gateway entry wrap must write, in the client's spelling. */
  readonly gateway: unknown;
  readonly context?: ParseContext;
  /** A malformed variant of the file and the position its error must name. */
  readonly broken: { readonly text: string; readonly at: string };
}

const cases: Case[] = [
  {
    name: 'Claude Desktop',
    file: 'claude-desktop/claude_desktop_config.json',
    expected: 'claude-desktop/expected.json',
    format: mcpServersFormat('claude-desktop'),
    kind: 'json',
    path: ['mcpServers'],
    gateway: plain,
    broken: { text: '{\n  "mcpServers": {\n    "a": { "command": "x" }\n    "b": {}\n  }\n}\n', at: ':4:5' },
  },
  {
    name: 'Claude Code (user, ~/.claude.json)',
    file: 'claude-code/.claude.json',
    expected: 'claude-code/expected.user.json',
    format: mcpServersFormat('claude-code'),
    kind: 'json',
    path: ['mcpServers'],
    gateway: { type: 'stdio', ...plain },
    broken: { text: '{ "numStartups": 1, "mcpServers": { "a": { "command": "x", } ', at: ':1:62' },
  },
  {
    name: 'Claude Code (local, projects[dir] in ~/.claude.json)',
    file: 'claude-code/.claude.json',
    expected: 'claude-code/expected.local.json',
    format: mcpServersFormat('claude-code', ['projects', '/home/me/project', 'mcpServers']),
    kind: 'json',
    path: ['projects', '/home/me/project', 'mcpServers'],
    gateway: { type: 'stdio', ...plain },
    broken: { text: '{ "projects": { "/home/me/project": [1, 2 } }', at: ':1:43' },
  },
  {
    name: 'Claude Code (project, .mcp.json)',
    file: 'claude-code/.mcp.json',
    expected: 'claude-code/expected.project.json',
    format: mcpServersFormat('claude-code'),
    kind: 'json',
    path: ['mcpServers'],
    gateway: { type: 'stdio', ...plain },
    broken: { text: '"just a string"', at: ':1:1' },
  },
  {
    name: 'Cursor',
    file: 'cursor/mcp.json',
    expected: 'cursor/expected.json',
    format: mcpServersFormat('cursor'),
    kind: 'json',
    path: ['mcpServers'],
    gateway: plain,
    context: { home: '/home/me' },
    broken: { text: '{\n  // comment\n  "mcpServers": { "a": { "command": "x" } }}\n}', at: ':4:1' },
  },
  {
    name: 'VS Code',
    file: 'vscode/mcp.json',
    expected: 'vscode/expected.json',
    format: vscodeFormat(),
    kind: 'json',
    path: ['servers'],
    gateway: { type: 'stdio', ...plain },
    context: { projectDir: '/home/me/project' },
    broken: { text: '{\n  "servers": {\n    "a": { "type": "stdio" "command": "x" }\n  }\n}', at: ':3:28' },
  },
  {
    name: 'Windsurf',
    file: 'windsurf/mcp_config.json',
    expected: 'windsurf/expected.json',
    format: windsurfFormat(),
    kind: 'json',
    path: ['mcpServers'],
    gateway: plain,
    broken: { text: '{ "mcpServers": { "a": { "serverUrl": "https://x } } }', at: ':1:39' },
  },
  {
    name: 'Gemini CLI',
    file: 'gemini/settings.json',
    expected: 'gemini/expected.json',
    format: geminiFormat(),
    kind: 'json',
    path: ['mcpServers'],
    gateway: plain,
    broken: { text: '{ "theme": "Dracula",, "mcpServers": {} }', at: ':1:22' },
  },
  {
    name: 'Codex',
    file: 'codex/config.toml',
    expected: 'codex/expected.json',
    format: codexFormat(),
    kind: 'toml',
    path: ['mcp_servers'],
    gateway: plain,
    broken: { text: 'model = "o3"\n\n[mcp_servers.a]\ncommand = npx\n', at: ':4:11' },
  },
  {
    name: 'Zed',
    file: 'zed/settings.json',
    expected: 'zed/expected.json',
    format: zedFormat(),
    kind: 'json',
    path: ['context_servers'],
    // The fixture uses the older nested form, so the gateway is written in it too.
    gateway: { command: { path: launch.command, args: launch.args, env: {} } },
    broken: { text: '// Zed\n{\n  "context_servers": {\n    "a": { "command": { "path": "x" } \n  }\n', at: ':6:1' },
  },
];

function documentOf(kind: 'json' | 'toml', text: string): Record<string, unknown> {
  return (kind === 'json' ? parseJsonc(text, [], { allowTrailingComma: true }) : parseToml(text)) as Record<string, unknown>;
}

/** The document without the server map at `path`, and that map. */
function split(kind: 'json' | 'toml', text: string, path: readonly string[]): { rest: unknown; section: unknown } {
  const doc = structuredClone(documentOf(kind, text));
  let parent: Record<string, unknown> = doc;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string, unknown>;
  const last = path[path.length - 1] as string;
  const section = parent[last];
  delete parent[last];
  return { rest: doc, section };
}

for (const c of cases) {
  describe(`client format: ${c.name}`, () => {
    const original = read(c.file);

    it('import reads the servers into the neutral form', () => {
      const parsed = c.format.parse(original, c.file, c.context);
      const expected = JSON.parse(read(c.expected)) as { servers: unknown; skipped: unknown };
      assert.deepEqual(parsed.servers, expected.servers);
      assert.deepEqual(parsed.skipped, expected.skipped);
      assert.equal(parsed.wrapped, false);
    });

    it('wrap leaves exactly the switchboard entry and changes nothing else; wrap again is a no-op', () => {
      const wrapped = c.format.wrap(original, c.file, launch);
      assert.equal(wrapped.changed, true);
      const before = split(c.kind, original, c.path);
      const after = split(c.kind, wrapped.text, c.path);
      assert.deepEqual(after.section, { switchboard: c.gateway });
      assert.deepEqual(after.rest, before.rest);
      const reparsed = c.format.parse(wrapped.text, c.file, c.context);
      assert.equal(reparsed.wrapped, true);
      assert.deepEqual(reparsed.servers.map((s) => [s.id, s.entry]), [['switchboard', plain]]);
      const again = c.format.wrap(wrapped.text, c.file, launch);
      assert.deepEqual(again, { text: wrapped.text, changed: false });
    });

    it('unwrap gives the original file back byte for byte; unwrap again is a no-op', () => {
      const wrapped = c.format.wrap(original, c.file, launch).text;
      const unwrapped = c.format.unwrap(wrapped, c.file, original);
      assert.equal(unwrapped.changed, true);
      assert.equal(unwrapped.text, original);
      assert.deepEqual(c.format.unwrap(unwrapped.text, c.file, original), { text: original, changed: false });
    });

    it('a malformed file is a ClientConfigError naming the file and the position', () => {
      for (const attempt of [() => c.format.parse(c.broken.text, c.file), () => c.format.wrap(c.broken.text, c.file, launch), () => c.format.unwrap(c.broken.text, c.file, original)]) {
        assert.throws(attempt, (error: unknown) => {
          assert.ok(error instanceof ClientConfigError);
          assert.equal(error.code, 'ERR_MCP_INVALID_ARGUMENT');
          assert.ok(error.message.startsWith(`${c.file}${c.broken.at}: `), error.message);
          return true;
        });
      }
    });
  });
}
