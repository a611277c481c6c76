/**
 * Switchboard over Streamable HTTP: {@link buildOurServer} behind
 * `createStreamableHttpHandler` and the Node adapter. Both wires are served by the same
 * handler: stateless 2026-07-28 (`_meta` per request) and the 2025-11-25 session wire
 * (header-less `initialize` mints an `Mcp-Session-Id`), so `--mode` changes nothing here.
 *
 * @module
 */
import { createServer } from 'node:http';
import { toNodeHandler } from 'switchboard/adapters/node';
import { createStreamableHttpHandler } from 'switchboard/transport/http';
import { announce, exitOnSignal, targetArgs } from './common.js';
import { buildOurServer } from './oursServer.js';

const args = targetArgs();
const handler = createStreamableHttpHandler(buildOurServer(args.tools));
exitOnSignal();
announce(createServer(toNodeHandler(handler)));
