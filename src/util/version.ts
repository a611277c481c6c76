/**
 * Switchboard's version, read from one place: the `version` of `package.json`, which
 * `test/unit/util/version.test.ts` keeps this constant equal to (bump both together).
 *
 * @module
 */

/**
 * The package's version: the `version` of every `Implementation` Switchboard announces (the
 * gateway's `serverInfo`, the host's and the CLI's `clientInfo`, the demo server's), of the
 * scanner's SARIF driver, and what `switchboard --version` prints.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#initialization
 */
export const SWITCHBOARD_VERSION = '0.1.0';
