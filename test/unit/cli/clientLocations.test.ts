// Where each client's config lives, per platform, from the environment given.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../../../src/cli/args.js';
import { clientLocations, clientName, CLIENT_NAMES, wrapLocation, type LocationContext } from '../../../src/cli/clientLocations.js';

const linux: LocationContext = { platform: 'linux', env: { HOME: '/home/me' } };
const files = (context: LocationContext, project?: string): Record<string, string[]> =>
  Object.fromEntries(CLIENT_NAMES.map((c) => [c, clientLocations(c, context, project).map((l) => `${l.scope} ${l.file}`)]));

describe('clientLocations', () => {
  it('Linux: HOME and XDG_CONFIG_HOME, project files with --project', () => {
    assert.deepEqual(files({ platform: 'linux', env: { HOME: '/home/me', XDG_CONFIG_HOME: '/xdg' } }, '/src/app'), {
      'claude-desktop': ['user /xdg/Claude/claude_desktop_config.json'],
      'claude-code': ['user /home/me/.claude.json', 'local /home/me/.claude.json', 'project /src/app/.mcp.json'],
      cursor: ['user /home/me/.cursor/mcp.json', 'project /src/app/.cursor/mcp.json'],
      vscode: ['user /xdg/Code/User/mcp.json', 'project /src/app/.vscode/mcp.json'],
      windsurf: ['user /home/me/.codeium/windsurf/mcp_config.json'],
      gemini: ['user /home/me/.gemini/settings.json', 'project /src/app/.gemini/settings.json'],
      codex: ['user /home/me/.codex/config.toml', 'project /src/app/.codex/config.toml'],
      zed: ['user /xdg/zed/settings.json', 'project /src/app/.zed/settings.json'],
    });
  });

  it('macOS: Application Support for Claude Desktop and VS Code; CODEX_HOME honoured', () => {
    const mac = files({ platform: 'darwin', env: { HOME: '/Users/me', CODEX_HOME: '/opt/codex' } });
    assert.deepEqual(mac['claude-desktop'], ['user /Users/me/Library/Application Support/Claude/claude_desktop_config.json']);
    assert.deepEqual(mac['vscode'], ['user /Users/me/Library/Application Support/Code/User/mcp.json']);
    assert.deepEqual(mac['codex'], ['user /opt/codex/config.toml']);
    assert.deepEqual(mac['zed'], ['user /Users/me/.config/zed/settings.json']);
  });

  it('Windows: APPDATA', () => {
    const win = files({ platform: 'win32', env: { HOME: '/c/Users/me', APPDATA: '/c/Users/me/AppData/Roaming' } });
    assert.deepEqual(win['claude-desktop'], ['user /c/Users/me/AppData/Roaming/Claude/claude_desktop_config.json']);
    assert.deepEqual(win['vscode'], ['user /c/Users/me/AppData/Roaming/Code/User/mcp.json']);
    assert.deepEqual(win['zed'], ['user /c/Users/me/AppData/Roaming/Zed/settings.json']);
  });

  it('wrap edits the user file, or the project file with --project; unknown clients are usage errors', () => {
    assert.equal(wrapLocation('cursor', linux).file, '/home/me/.cursor/mcp.json');
    assert.equal(wrapLocation('claude-code', linux, '/src/app').file, '/src/app/.mcp.json');
    assert.throws(() => wrapLocation('claude-desktop', linux, '/src/app'), UsageError);
    assert.throws(() => clientName('notepad'), UsageError);
    assert.throws(() => clientName(undefined), UsageError);
  });
});
