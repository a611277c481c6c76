/**
 * Client adapter for Switchboard's `McpClient` over HTTP with `nodeFetch` (the keep-alive
 * `fetch` on node:http from `switchboard/adapters/node`, what the CLI and a Node host use)
 * instead of Node's global `fetch`. Measured over HTTP only (over stdio it is `ours`).
 *
 * @module
 */
import { nodeFetch } from 'switchboard/adapters/node';
import { connectOurs } from './ours.js';

export default connectOurs(nodeFetch());
