/**
 * `switchboard logout <server>`: deletes the stored OAuth tokens of a remote server of the config.
 *
 * @module
 */
import { defineCommand } from '../command.js';
import { loadConfig } from '../hostSetup.js';
import { logout, loginTarget } from '../oauthLogin.js';

/** `switchboard logout`. */
export const command = defineCommand({
  name: 'logout',
  summary: 'delete the stored OAuth tokens of a remote server',
  usage: ['<server> [--config FILE]'],
  description: 'Deletes the stored OAuth tokens (and client registration) of a remote server of the config.',
  positionals: [{ name: '<server>', description: 'the server (its key in mcpServers)' }],
  options: {
    config: { type: 'string', value: 'FILE', description: 'the config', default: './switchboard.json' },
  },
  async run(parsed) {
    const { id, file } = loginTarget(parsed);
    const result = await logout(await loadConfig(file), id);
    process.stderr.write(result.removed ? `Signed out of ${id}: removed ${result.file}\n` : `No tokens stored for ${id} (${result.file})\n`);
    return 0;
  },
});
