// The attack e2e tests' one setup (issue #32): the real `switchboard gateway` process fronting the
// attack fixture server (`fixtures/attackServer.ts`), an official SDK v1 client connected to it, and
// the server's own log of what reached it.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { startGateway, writeConfig, type GatewayConfig, type RunningGateway } from '../interop/fixtures/gatewayHarness.js';

const SERVER = fileURLToPath(new URL('./fixtures/attackServer.ts', import.meta.url));

/** One line of the attack server's own log. */
export interface Reached {
  readonly method: string;
  readonly name?: string;
  readonly uri?: string;
  readonly arguments?: Record<string, unknown>;
}

/** A gateway fronting the attack server (as server `attacks`), with a connected client. */
export interface AttackGateway {
  readonly config: GatewayConfig;
  readonly gateway: RunningGateway;
  readonly client: Client;
  /** Every request the server received, in arrival order. */
  reached(): Promise<Reached[]>;
  close(): Promise<void>;
}

/**
 * Starts the gateway with `switchboard` as its config section and the attack server (with `env`
 * added to its environment), and connects a client. With `asked`, the client answers sampling
 * (a fixed reply) and elicitation (declining) and pushes every such request's params, and every
 * log message's, onto it.
 */
export async function openAttackGateway(switchboard: Record<string, unknown> = {}, env: Record<string, string> = {}, asked?: unknown[]): Promise<AttackGateway> {
  const config = await writeConfig({ attacks: { command: process.execPath, args: ['--import', import.meta.resolve('tsx'), SERVER], cwd: '.', env: { CALL_LOG: 'calls.jsonl', ...env } } }, switchboard);
  const gateway = await startGateway(config);
  const client = new Client({ name: 'e2e', version: '1.0.0' }, { capabilities: asked === undefined ? {} : { sampling: {}, elicitation: {} } });
  if (asked !== undefined) {
    client.setRequestHandler(CreateMessageRequestSchema, (request) => {
      asked.push(request.params);
      return { role: 'assistant', content: { type: 'text', text: 'It is sunny.' }, model: 'test-model' };
    });
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params);
      return { action: 'decline' };
    });
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      asked.push(notification.params);
    });
  }
  await client.connect(new StreamableHTTPClientTransport(gateway.url, { requestInit: { headers: { Authorization: `Bearer ${gateway.token}` } } }));
  return {
    config,
    gateway,
    client,
    reached: async () =>
      (await readFile(join(config.dir, 'calls.jsonl'), 'utf8').catch(() => ''))
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Reached),
    close: async () => {
      await client.close();
      await gateway.stop();
      await config.remove();
    },
  };
}
