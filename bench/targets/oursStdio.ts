/**
 * Switchboard over stdio: {@link buildOurServer} connected to a `StdioServerTransport` on
 * this process's stdin/stdout.
 *
 * @module
 */
import { StdioServerTransport } from 'switchboard/transport/stdio';
import { targetArgs } from './common.js';
import { buildOurServer } from './oursServer.js';

const server = buildOurServer(targetArgs().tools);
await server.connect(new StdioServerTransport({ input: process.stdin, output: process.stdout }));
