// One `switchboard gateway` process in OAuth mode behind the dev authorization server, for the
// CLI tests of the gateway's inbound OAuth (its metadata, its public URL).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DevAuthorizationServer } from '../../../src/auth/dev/devAuthorizationServer.js';
import { clock, startAuthorizationServer } from '../../e2e/remoteOAuthSupport.js';
import { startCli, type RunningCli } from './cliProcess.js';

/** A started gateway: its authorization server, its folder, the process and the URL it printed. */
export interface OAuthGatewayProcess {
  readonly as: DevAuthorizationServer;
  readonly dir: string;
  readonly gateway: RunningCli;
  readonly url: string;
  /** Stops the gateway and the authorization server, and removes the folder. */
  close(): Promise<void>;
}

/** Starts the authorization server, then a gateway whose `switchboard.gateway` section `gatewayOf` makes from the issuer. */
export async function startOAuthGateway(prefix: string, gatewayOf: (issuer: string) => Record<string, unknown>): Promise<OAuthGatewayProcess> {
  const started = await startAuthorizationServer(clock().now);
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const file = join(dir, 'switchboard.json');
  await writeFile(file, JSON.stringify({ mcpServers: {}, switchboard: { gateway: gatewayOf(started.as.issuer) } }));
  const gateway = startCli(['gateway', '--config', file, '--log-level', 'warn']);
  const output = await gateway.waitFor(/Switchboard gateway: (\S+)/);
  return {
    as: started.as,
    dir,
    gateway,
    url: /Switchboard gateway: (\S+)/.exec(output)?.[1] ?? '',
    close: async () => {
      await gateway.stop();
      await started.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
