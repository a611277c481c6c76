// `switchboard import`, `wrap` and `unwrap` run as real processes (through tsx, like the other
// CLI tests) against client configs laid out in a temporary HOME.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse as parseJsonc } from 'jsonc-parser';

const root = new URL('../../../', import.meta.url).pathname;
const fixtures = join(root, 'test/fixtures/clientConfigs');

interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

let home: string;

function cli(...args: string[]): Promise<Outcome> {
  const env: Record<string, string | undefined> = { ...process.env, NODE_OPTIONS: '', HOME: home };
  for (const name of ['XDG_CONFIG_HOME', 'APPDATA', 'CODEX_HOME', 'USERPROFILE']) delete env[name];
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { cwd: root, timeout: 60_000, env }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });
}

/** Copies a fixture into the temporary HOME at `path`. */
function place(fixture: string, ...path: string[]): string {
  const target = join(home, ...path);
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(join(fixtures, fixture), target);
  return target;
}

const backups = (file: string): string[] => readdirSync(dirname(file)).filter((n) => n.startsWith(`${file.slice(dirname(file).length + 1)}.switchboard-backup-`));
const json = (file: string): Record<string, unknown> => parseJsonc(readFileSync(file, 'utf8'), [], { allowTrailingComma: true }) as Record<string, unknown>;

before(() => {
  home = mkdtempSync(join(tmpdir(), 'switchboard-wrap-'));
});

after(() => {
  rmSync(home, { recursive: true, force: true });
});

describe('switchboard import', () => {
  before(() => {
    place('cursor/mcp.json', '.cursor', 'mcp.json');
    place('codex/config.toml', '.codex', 'config.toml');
    place('vscode/mcp.json', '.config', 'Code', 'User', 'mcp.json');
    place('windsurf/mcp_config.json', '.codeium', 'windsurf', 'mcp_config.json');
    place('cursor/mcp.json', 'project', '.cursor', 'mcp.json');
  });
  after(() => {
    for (const dir of ['.cursor', '.codex', '.config', '.codeium', 'project']) rmSync(join(home, dir), { recursive: true, force: true });
  });

  it('prints one config merging every client found, with notes on stderr', async () => {
    const { code, stdout, stderr } = await cli('import', '--project', join(home, 'project'));
    assert.equal(code, 0, stderr);
    const servers = (JSON.parse(stdout) as { mcpServers: Record<string, unknown> }).mcpServers;
    assert.deepEqual(Object.keys(servers).sort(), ['browser', 'context7', 'figma', 'github', 'github-2', 'linear', 'local-tools', 'notes', 'ollama', 'perplexity', 'zapier']);
    assert.deepEqual(servers['notes'], { command: 'node', args: [`${home}/notes/server.js`], env: { NOTES_KEY: '${env:NOTES_KEY}' } });
    assert.match(stderr, /"browser" \(cursor project\): identical to the "browser" already merged; kept once/);
    assert.match(stderr, /"github" \(windsurf\): a different "github" is already there; added as "github-2"/);
    assert.match(stderr, /"local tools" \(codex\): renamed to "local-tools"/);
    assert.match(stderr, /VS Code input "perplexity-key" \(Perplexity API Key\) is now \$\{env:PERPLEXITY_KEY\}/);
  });

  it('--client reads one client; --out writes a file and refuses to replace it without --force', async () => {
    const out = join(home, 'imported.json');
    const first = await cli('import', '--client', 'codex', '--out', out);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout, '');
    assert.deepEqual(Object.keys(json(out)['mcpServers'] as object), ['context7', 'figma', 'local-tools']);
    const again = await cli('import', '--client', 'codex', '--out', out);
    assert.equal(again.code, 2);
    assert.match(again.stderr, /exists; pass --force/);
    assert.equal((await cli('import', '--client', 'codex', '--out', out, '--force')).code, 0);
    rmSync(out);
  });
});

describe('switchboard wrap / unwrap', () => {
  it('wraps Cursor: backup, servers merged into switchboard.json, one gateway entry; idempotent both ways', async () => {
    const file = place('cursor/mcp.json', '.cursor', 'mcp.json');
    const original = readFileSync(file, 'utf8');
    const config = join(home, 'sb', 'switchboard.json');
    mkdirSync(dirname(config), { recursive: true });

    const wrap = await cli('wrap', 'cursor', '--config', config);
    assert.equal(wrap.code, 0, wrap.stderr);
    const [backup, ...more] = backups(file);
    assert.equal(more.length, 0);
    assert.ok(wrap.stdout.includes(`backed up ${file} to ${join(dirname(file), backup as string)}`), wrap.stdout);
    assert.equal(readFileSync(join(dirname(file), backup as string), 'utf8'), original);
    assert.deepEqual(json(file)['mcpServers'], {
      switchboard: { command: process.execPath, args: [join(root, 'dist/cli/main.js'), 'gateway', '--stdio', '--config', config] },
    });
    assert.deepEqual(json(config), {
      mcpServers: {
        browser: { command: 'npx', args: ['@playwright/mcp@latest'] },
        notes: { command: 'node', args: [`${home}/notes/server.js`], env: { NOTES_KEY: '${env:NOTES_KEY}' } },
        linear: { url: 'https://mcp.linear.app/sse', type: 'sse' },
      },
    });

    const wrapped = readFileSync(file, 'utf8');
    const twice = await cli('wrap', 'cursor', '--config', config);
    assert.equal(twice.code, 0);
    assert.match(twice.stdout, /already wrapped.*nothing changed/);
    assert.equal(readFileSync(file, 'utf8'), wrapped);
    assert.equal(backups(file).length, 1);

    const unwrap = await cli('unwrap', 'cursor');
    assert.equal(unwrap.code, 0, unwrap.stderr);
    assert.equal(readFileSync(file, 'utf8'), original);
    const again = await cli('unwrap', 'cursor');
    assert.match(again.stdout, /not wrapped.*nothing changed/);
    assert.equal(readFileSync(file, 'utf8'), original);
  });

  it('wraps Codex (TOML) into an existing switchboard.json and unwraps to the same bytes', async () => {
    const file = place('codex/config.toml', '.codex', 'config.toml');
    const original = readFileSync(file, 'utf8');
    const config = join(home, 'sb', 'codex.json');
    writeFileSync(config, '{\n  // kept\n  "mcpServers": { "context7": { "command": "other" } }\n}\n');
    const wrap = await cli('wrap', 'codex', '--config', config);
    // The merge keeps the comment, which the gateway's strict JSON reader refuses: wrap says so (exit 1) after writing.
    assert.equal(wrap.code, 1, wrap.stderr);
    assert.match(wrap.stderr, /the gateway cannot read .*codex\.json, so Codex would get no servers/);
    assert.match(wrap.stderr, /a different "context7" is already there; added as "context7-2"/);
    assert.ok(readFileSync(config, 'utf8').includes('// kept'));
    assert.deepEqual(Object.keys(json(config)['mcpServers'] as object), ['context7', 'context7-2', 'figma', 'local-tools']);
    assert.match(readFileSync(file, 'utf8'), /^\[mcp_servers\.switchboard\]$/m);
    assert.equal((await cli('unwrap', 'codex')).code, 0);
    assert.equal(readFileSync(file, 'utf8'), original);
  });

  it('wraps the project file with --project', async () => {
    const file = place('claude-code/.mcp.json', 'proj', '.mcp.json');
    const config = join(home, 'sb', 'proj.json');
    const wrap = await cli('wrap', 'claude-code', '--project', join(home, 'proj'), '--config', config);
    assert.equal(wrap.code, 0, wrap.stderr);
    assert.deepEqual(Object.keys(json(file)['mcpServers'] as object), ['switchboard']);
    assert.deepEqual(json(config)['mcpServers'], { api: { url: '${env:API_BASE:-https://api.example.com}/sse', type: 'sse' } });
  });

  it('a malformed client file is an error naming the file and position, and nothing is written', async () => {
    const file = join(home, '.gemini', 'settings.json');
    mkdirSync(dirname(file), { recursive: true });
    const broken = '{ "theme": "Dracula",, "mcpServers": {} }';
    writeFileSync(file, broken);
    const config = join(home, 'sb', 'never.json');
    const wrap = await cli('wrap', 'gemini', '--config', config);
    assert.equal(wrap.code, 1);
    assert.ok(wrap.stderr.includes(`${file}:1:22: invalid JSON`), wrap.stderr);
    assert.equal(readFileSync(file, 'utf8'), broken);
    assert.deepEqual(backups(file), []);
    assert.equal(existsSync(config), false);
    const imported = await cli('import', '--client', 'gemini');
    assert.equal(imported.code, 1);
    assert.ok(imported.stderr.includes(`${file}:1:22`), imported.stderr);
  });

  it('usage errors: unknown client, a client without project configs, no config to wrap', async () => {
    const unknown = await cli('wrap', 'notepad');
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown client "notepad"; known: claude-desktop, claude-code/);
    assert.equal((await cli('unwrap', 'windsurf', '--project', home)).code, 2);
    const missing = await cli('wrap', 'zed', '--config', join(home, 'sb', 'z.json'));
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no zed config at .*\.config\/zed\/settings\.json/);
  });
});
