import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JsonRpcError } from '../../../src/jsonrpc/errors.js';
import { McpServer } from '../../../src/server/mcpServer.js';
import { consoleErrorLogger, createLineLogger, formatLogLine, silentLogger } from '../../../src/util/logger.js';
import { connectRaw } from '../server/support.js';

describe('util/logger', () => {
  it('createLineLogger writes one JSON line per entry at or above its level', () => {
    const lines: string[] = [];
    const logger = createLineLogger((line) => lines.push(line), 'warn');
    logger.info('dropped');
    logger.warn('kept', { n: 1 });
    assert.deepEqual(lines, ['{"level":"warn","msg":"kept","n":1}\n']);
  });

  it('consoleErrorLogger writes warnings and errors to console.error (never stdout), not debug or info', (t) => {
    const errors = t.mock.method(console, 'error', () => undefined);
    const logs = t.mock.method(console, 'log', () => undefined);
    consoleErrorLogger.debug('d');
    consoleErrorLogger.info('i');
    consoleErrorLogger.warn('w');
    consoleErrorLogger.error('e', { method: 'tools/call' });
    assert.deepEqual(
      errors.mock.calls.map((c) => c.arguments[0]),
      ['{"level":"warn","msg":"w"}', '{"level":"error","msg":"e","method":"tools/call"}'],
    );
    assert.equal(logs.mock.callCount(), 0);
  });

  it('an McpServer without a logger shows a throwing handler on stderr (the client sees only Internal error)', async (t) => {
    const errors = t.mock.method(console, 'error', () => undefined);
    const server = new McpServer({ name: 'loud', version: '1.0.0' });
    server.tool('boom', { inputSchema: { type: 'object' } }, () => {
      throw new Error('disk on fire');
    });
    const c = await connectRaw(server);
    try {
      await assert.rejects(c.call('tools/call', { name: 'boom', arguments: {} }), (e: unknown) => e instanceof JsonRpcError && e.code === -32603 && e.message === 'Internal error');
    } finally {
      await c.close();
    }
    const printed = errors.mock.calls.map((c) => String(c.arguments[0])).join('\n');
    assert.match(printed, /"level":"error","msg":"a handler failed","method":"tools\/call"/);
    assert.match(printed, /disk on fire/);
  });

  it('silentLogger keeps an McpServer quiet when asked', async (t) => {
    const errors = t.mock.method(console, 'error', () => undefined);
    const server = new McpServer({ name: 'quiet', version: '1.0.0' }, { logger: silentLogger });
    server.tool('boom', { inputSchema: { type: 'object' } }, () => {
      throw new Error('disk on fire');
    });
    const c = await connectRaw(server);
    try {
      await assert.rejects(c.call('tools/call', { name: 'boom', arguments: {} }));
    } finally {
      await c.close();
    }
    assert.equal(errors.mock.callCount(), 0);
  });
});

describe('util/logger formats', () => {
  it('text: one line for a person, the server in brackets, info without a level, other fields as key=value', () => {
    const lines: string[] = [];
    const logger = createLineLogger((line) => lines.push(line), 'info', 'text');
    logger.info('hello from the server', { event: 'server.stderr', server: 'files' });
    logger.warn('server files stopped', { server: 'files', failures: 2, error: 'exit 1' });
    logger.error('plain');
    logger.warn('not approved:\n  command: "npx"', { server: 'files' });
    assert.deepEqual(lines, ['[files] hello from the server\n', 'warn [files] server files stopped failures=2 error="exit 1"\n', 'error plain\n', 'warn [files] not approved:\n[files]   command: "npx"\n']);
  });

  it('json: the same entries as JSON objects, the server id a field', () => {
    assert.equal(formatLogLine('json', 'warn', 'server files stopped', { server: 'files' }), '{"level":"warn","msg":"server files stopped","server":"files"}\n');
  });
});
