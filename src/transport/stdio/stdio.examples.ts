/**
 * The `@example`s of the stdio transports (`server.ts`, `client.ts`, `env.ts`), type-checked
 * here (never bundled or run; `npm test` checks the JSDoc copies match).
 *
 * @module
 */
import { Connection, type RequestHandler } from '../../jsonrpc/connection.js';
import { StdioClientTransport } from './client.js';
import { defaultEnvironment } from './env.js';
import { StdioServerTransport } from './server.js';

/** {@link StdioServerTransport} on the process's stdin/stdout. */
export async function stdioServerExample(onRequest: RequestHandler): Promise<void> {
  const transport = new StdioServerTransport({ input: process.stdin, output: process.stdout });
  const connection = new Connection(transport, { onRequest });
  await connection.start();
}

/** {@link StdioClientTransport} spawning a server. */
export async function stdioClientExample(): Promise<void> {
  const transport = new StdioClientTransport({ command: 'node', args: ['server.js'], env: defaultEnvironment(process.env) });
  const connection = new Connection(transport);
  await connection.start();
}

/** {@link defaultEnvironment} with an added variable. */
export function defaultEnvironmentExample(key: string): void {
  new StdioClientTransport({ command: 'my-server', env: defaultEnvironment(process.env, { API_KEY: key }) });
}
