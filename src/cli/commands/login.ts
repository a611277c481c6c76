/**
 * `switchboard login <server>`: signs in to a remote server of the config with OAuth, for the
 * gateway to use the tokens unattended afterwards (`oauthLogin.ts`).
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization
 * @module
 */
import { portOption } from '../args.js';
import { defineCommand } from '../command.js';
import { loadConfig } from '../hostSetup.js';
import { login, loginTarget, type LoginResult } from '../oauthLogin.js';
import { openSharedStores } from '../sharedStores.js';
import { counted } from '../../util/plural.js';

/** `switchboard login`. */
export const command = defineCommand({
  name: 'login',
  summary: 'sign in to a remote server of the config with OAuth (tokens for the gateway)',
  usage: ['<server> [--config FILE] [--redirect-port N]'],
  description: `Signs in to a remote server of the config with OAuth (authorization code + PKCE): prints
the authorization URL to open in a browser and waits for the redirect to a loopback
listener on 127.0.0.1. The tokens are stored for the gateway under the config's stateDir
(oauth/, one file per server URL, mode 0600) and refreshed automatically.

The server needs an oauth section in the config (an empty one is enough):
  "switchboard": { "servers": { "<server>": { "oauth": {} } } }`,
  positionals: [{ name: '<server>', description: 'the server (its key in mcpServers)' }],
  options: {
    config: { type: 'string', value: 'FILE', description: 'the config', default: './switchboard.json' },
    'redirect-port': { type: 'string', value: 'N', description: 'the loopback redirect port', default: "the server's oauth.redirectPort, else 33418" },
  },
  async run(parsed) {
    const { id, file } = loginTarget(parsed);
    const { options } = parsed;
    const config = await loadConfig(file);
    const port = options['redirect-port'] === undefined ? undefined : portOption(options['redirect-port'], 0);
    // With switchboard.store the tokens go to PostgreSQL, where every gateway instance reads them.
    const shared = config.store === undefined ? undefined : await openSharedStores(config.store, undefined);
    let result: LoginResult;
    try {
      const tokens = shared?.oauthTokens !== undefined ? { stores: shared.oauthTokens, where: shared.described[0] ?? 'PostgreSQL' } : undefined;
      result = await login({ config, serverId: id, ...(port !== undefined ? { redirectPort: port } : {}), ...(tokens !== undefined ? { tokens } : {}) });
    } finally {
      await shared?.close();
    }
    if (!result.signedIn) {
      process.stderr.write(`${id} (${result.identity}) did not ask for authorization: nothing stored.\n`);
      return 0;
    }
    process.stderr.write(`Signed in to ${id} (${result.identity}): ${counted(result.tools, 'tool')}.\nTokens stored in ${result.file}${shared === undefined ? ' (mode 0600)' : ''}; the gateway refreshes them.\n`);
    return 0;
  },
});
