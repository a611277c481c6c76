/**
 * Switchboard over Streamable HTTP: {@link buildOurServer} behind
 * `createStreamableHttpHandler` and the Node adapter. Only the stateless 2026-07-28 wire
 * exists so far; `--mode session` exits with code 3 ("not supported yet").
 *
 * @module
 */
import { createServer } from 'node:http';
import { toNodeHandler } from '../../src/adapters/nodeHttp.js';
import { createStreamableHttpHandler } from '../../src/transport/http/server.js';
import { announce, exitOnSignal, targetArgs } from './common.js';
import { buildOurServer } from './oursServer.js';

const args = targetArgs();
if (args.mode === 'session') {
  process.stderr.write('switchboard: the 2025-11-25 session wire is not supported yet\n');
  process.exit(3);
}
const handler = createStreamableHttpHandler(buildOurServer(args.tools));
exitOnSignal();
announce(createServer(toNodeHandler(handler)));
