#!/usr/bin/env node
/**
 * The client fixture the official MCP conformance referee drives:
 * `node dist/conformance/conformanceClient.js <serverUrl>` with `MCP_CONFORMANCE_SCENARIO`,
 * `MCP_CONFORMANCE_PROTOCOL_VERSION` and (for some scenarios) `MCP_CONFORMANCE_CONTEXT` set.
 *
 * It builds an `McpClient` (elicitation, sampling and roots handlers, so all three
 * capabilities are declared), connects over `StreamableHttpClientTransport` at the run's
 * revision (2026-07-28: stateless, no handshake; 2025-11-25 and earlier: `initialize`), with
 * OAuth through the library's provider for `auth/*` scenarios, and performs the scenario's
 * steps (`clientConformanceScenarios.ts`). Exit 0 on success, 1 on failure; logs go to stderr.
 *
 * @module
 */
import { createLineLogger } from '../util/logger.js';
import { describeError } from '../util/errors.js';
import { readRun, runScenario } from './clientConformanceRun.js';

async function main(): Promise<number> {
  const level = process.env['SWITCHBOARD_LOG_LEVEL'];
  const logger = createLineLogger((line) => process.stderr.write(line), level === 'debug' || level === 'warn' || level === 'error' ? level : 'info');
  try {
    const run = readRun(process.argv.slice(2), process.env);
    logger.info('conformance scenario', { scenario: run.scenario, revision: run.revision, url: run.serverUrl });
    await runScenario(run, logger);
    logger.info('scenario done', { scenario: run.scenario });
    return 0;
  } catch (error) {
    logger.error('scenario failed', { error: describeError(error) });
    return 1;
  }
}

const code = await main();
process.exit(code);
