/**
 * Where each MCP client keeps its server list, per platform and scope, and which format the
 * file is in. Paths are built from HOME, APPDATA, XDG_CONFIG_HOME and CODEX_HOME as the
 * environment gives them, so tests point them at temporary folders.
 *
 * @module
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { codexFormat } from '../host/clientConfigs/codex.js';
import { geminiFormat } from '../host/clientConfigs/gemini.js';
import { mcpServersFormat } from '../host/clientConfigs/mcpServersJson.js';
import type { ClientFormat } from '../host/clientConfigs/types.js';
import { vscodeFormat } from '../host/clientConfigs/vscode.js';
import { windsurfFormat } from '../host/clientConfigs/windsurf.js';
import { zedFormat } from '../host/clientConfigs/zed.js';
import { UsageError } from './args.js';

/** The clients Switchboard can import from and wrap. */
export const CLIENT_NAMES = ['claude-desktop', 'claude-code', 'cursor', 'vscode', 'windsurf', 'gemini', 'codex', 'zed'] as const;

/** One of {@link CLIENT_NAMES}. */
export type ClientName = (typeof CLIENT_NAMES)[number];

/** `user`: the client's own settings; `project`: a file in the project; `local`: per-project servers kept in a user file. */
export type ClientScope = 'user' | 'project' | 'local';

/** One config file of one client. */
export interface ClientLocation {
  readonly client: ClientName;
  readonly scope: ClientScope;
  readonly file: string;
  readonly format: ClientFormat;
}

/** What paths depend on. */
export interface LocationContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly platform: string;
}

/** The home folder: HOME (USERPROFILE on Windows), else the OS's idea of it. */
export function homeOf(context: LocationContext): string {
  return context.env['HOME'] ?? context.env['USERPROFILE'] ?? homedir();
}

/** Reads a client name, or throws a usage error listing the known ones. */
export function clientName(value: string | undefined): ClientName {
  if (value === undefined) throw new UsageError(`name a client: ${CLIENT_NAMES.join(', ')}`);
  if (!(CLIENT_NAMES as readonly string[]).includes(value)) throw new UsageError(`unknown client ${JSON.stringify(value)}; known: ${CLIENT_NAMES.join(', ')}`);
  return value as ClientName;
}

/** The per-user application config folder the client uses on this platform. */
function appConfigDir(context: LocationContext, name: { mac: string; windows: string; linux: string }): string {
  const home = homeOf(context);
  if (context.platform === 'darwin') return join(home, 'Library', 'Application Support', name.mac);
  if (context.platform === 'win32') return join(context.env['APPDATA'] ?? join(home, 'AppData', 'Roaming'), name.windows);
  return join(context.env['XDG_CONFIG_HOME'] ?? join(home, '.config'), name.linux);
}

/**
 * The config files of `client`: the user-scope one(s), and with `projectDir` the project
 * ones as well. Files are listed whether they exist or not.
 */
export function clientLocations(client: ClientName, context: LocationContext, projectDir?: string): ClientLocation[] {
  const home = homeOf(context);
  const dir = projectDir === undefined ? undefined : resolve(projectDir);
  const at = (scope: ClientScope, file: string, format: ClientFormat): ClientLocation => ({ client, scope, file, format });
  const project = (path: string[], format: ClientFormat): ClientLocation[] => (dir === undefined ? [] : [at('project', join(dir, ...path), format)]);
  switch (client) {
    case 'claude-desktop':
      return [at('user', join(appConfigDir(context, { mac: 'Claude', windows: 'Claude', linux: 'Claude' }), 'claude_desktop_config.json'), mcpServersFormat('claude-desktop'))];
    case 'claude-code':
      return [
        at('user', join(home, '.claude.json'), mcpServersFormat('claude-code')),
        ...(dir === undefined ? [] : [at('local', join(home, '.claude.json'), mcpServersFormat('claude-code', ['projects', dir, 'mcpServers']))]),
        ...project(['.mcp.json'], mcpServersFormat('claude-code')),
      ];
    case 'cursor':
      return [at('user', join(home, '.cursor', 'mcp.json'), mcpServersFormat('cursor')), ...project(['.cursor', 'mcp.json'], mcpServersFormat('cursor'))];
    case 'vscode':
      return [at('user', join(appConfigDir(context, { mac: 'Code', windows: 'Code', linux: 'Code' }), 'User', 'mcp.json'), vscodeFormat()), ...project(['.vscode', 'mcp.json'], vscodeFormat())];
    case 'windsurf':
      return [at('user', join(home, '.codeium', 'windsurf', 'mcp_config.json'), windsurfFormat())];
    case 'gemini':
      return [at('user', join(home, '.gemini', 'settings.json'), geminiFormat()), ...project(['.gemini', 'settings.json'], geminiFormat())];
    case 'codex':
      return [at('user', join(context.env['CODEX_HOME'] ?? join(home, '.codex'), 'config.toml'), codexFormat()), ...project(['.codex', 'config.toml'], codexFormat())];
    case 'zed': {
      const user = context.platform === 'win32' ? join(context.env['APPDATA'] ?? join(home, 'AppData', 'Roaming'), 'Zed') : join(context.env['XDG_CONFIG_HOME'] ?? join(home, '.config'), 'zed');
      return [at('user', join(user, 'settings.json'), zedFormat()), ...project(['.zed', 'settings.json'], zedFormat())];
    }
  }
}

/** The one file `wrap`/`unwrap` edit: the user file, or with `projectDir` the project file. */
export function wrapLocation(client: ClientName, context: LocationContext, projectDir?: string): ClientLocation {
  const wanted: ClientScope = projectDir === undefined ? 'user' : 'project';
  const location = clientLocations(client, context, projectDir).find((l) => l.scope === wanted);
  if (location === undefined) throw new UsageError(`${client} has no project config; wrap it without --project`);
  return location;
}

/** The process's own context. */
export function processContext(): LocationContext {
  return { env: process.env, platform: process.platform };
}
