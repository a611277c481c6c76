// The conformance fixture's pure parts: reading the referee's run, versions per revision,
// the elicitation answer, error descriptions; and one scenario run against `everything`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listen } from '../../../src/adapters/nodeHttp.js';
import { acceptElicitation } from '../../../src/conformance/clientConformanceScenarios.js';
import { readRun, runScenario, versionsFor } from '../../../src/conformance/clientConformanceRun.js';
import { createEverythingServer } from '../../../src/demo/everything/server.js';
import { applyElicitationDefaults } from '../../../src/client/inputs.js';
import type { ElicitParams } from '../../../src/protocol/model/elicitation.js';
import { createStreamableHttpHandler } from '../../../src/transport/http/server/server.js';
import { silentLogger } from '../../../src/util/logger.js';

describe('conformance fixture', () => {
  it('reads the URL (last argument), scenario, revision and context', () => {
    const run = readRun(['--x', 'http://localhost:1/mcp'], {
      MCP_CONFORMANCE_SCENARIO: 'http-custom-headers',
      MCP_CONFORMANCE_PROTOCOL_VERSION: '2025-11-25',
      MCP_CONFORMANCE_CONTEXT: '{"name":"http-custom-headers","toolCalls":[]}',
    });
    assert.deepEqual(run, { serverUrl: 'http://localhost:1/mcp', scenario: 'http-custom-headers', revision: '2025-11-25', context: { name: 'http-custom-headers', toolCalls: [] } });
    assert.equal(readRun(['http://h/'], {}).revision, '2026-07-28');
    assert.throws(() => readRun([], {}), /usage/);
    assert.throws(() => readRun(['http://h/'], { MCP_CONFORMANCE_PROTOCOL_VERSION: '1999-01-01' }), /unsupported/);
  });

  it('speaks only the run revision at 2026, and any stateful one up to it otherwise', () => {
    assert.deepEqual(versionsFor('2026-07-28'), { versions: ['2026-07-28'], era: 'stateless' });
    assert.deepEqual(versionsFor('2025-11-25'), { versions: ['2025-11-25', '2025-06-18', '2025-03-26'], era: 'stateful' });
  });

  it('accepts elicitations: booleans true, first enum, fields with defaults left to the client', () => {
    const params = {
      mode: 'form',
      message: 'ok?',
      requestedSchema: {
        type: 'object',
        properties: {
          confirmed: { type: 'boolean' },
          color: { type: 'string', enum: ['red', 'green'] },
          name: { type: 'string', default: 'John Doe' },
          age: { type: 'integer', minimum: 3 },
        },
      },
    } as unknown as ElicitParams;
    const answer = acceptElicitation(params);
    assert.deepEqual(answer, { action: 'accept', content: { confirmed: true, color: 'red', age: 3 } });
    assert.deepEqual(applyElicitationDefaults(params, answer), { action: 'accept', content: { confirmed: true, color: 'red', age: 3, name: 'John Doe' } });
  });

  it('runs tools_call-like steps against everything over HTTP (both eras)', async () => {
    const server = createEverythingServer({ watchIntervalMs: 0 });
    const running = await listen(createStreamableHttpHandler(server, { path: '/mcp' }), { port: 0, host: '127.0.0.1' });
    try {
      const serverUrl = new URL('/mcp', running.url).href;
      for (const revision of ['2026-07-28', '2025-11-25'] as const) {
        await runScenario({ serverUrl, scenario: 'json-schema-ref-no-deref', revision, context: {} }, silentLogger);
      }
      await assert.rejects(runScenario({ serverUrl, scenario: 'tools_call', revision: '2026-07-28', context: {} }, silentLogger), /add_numbers/);
    } finally {
      await server.close();
      await running.close();
    }
  });
});
