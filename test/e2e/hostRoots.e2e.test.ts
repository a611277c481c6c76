/**
 * Roots a server asks for outside any call, against the real `@modelcontextprotocol/server-filesystem`:
 * it asks `roots/list` right after `notifications/initialized` and again on
 * `notifications/roots/list_changed`, and serves only the folders it got.
 * https://modelcontextprotocol.io/specification/2025-11-25/client/roots
 */
import assert from 'node:assert/strict';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { defaultTransportFactory } from '../../src/adapters/hostTransports.js';
import { pathToFileUri } from '../../src/host/configPaths.js';
import type { ConfiguredRoot } from '../../src/host/configTypes.js';
import { GATEWAY_CLIENT_CAPABILITIES } from '../../src/host/gateway.js';
import { Host } from '../../src/host/host.js';
import type { Interceptor } from '../../src/host/interceptors.js';
import type { DownstreamSpec } from '../../src/host/spec.js';
import type { Logger } from '../../src/util/logger.js';

const require = createRequire(import.meta.url);
const filesystemBin = join(require.resolve('@modelcontextprotocol/server-filesystem/package.json'), '..', 'dist', 'index.js');

/** Resolves with the next stderr line of the server that contains `text`. */
class Lines {
  readonly #waiting: { text: string; resolve: (line: string) => void }[] = [];
  readonly logger: Logger = {
    debug: () => undefined,
    info: (message) => this.#line(message),
    warn: (message) => this.#line(message),
    error: (message) => this.#line(message),
  };

  next(text: string): Promise<string> {
    return new Promise((resolve) => this.#waiting.push({ text, resolve }));
  }

  #line(message: string): void {
    for (const w of [...this.#waiting]) {
      if (!message.includes(w.text)) continue;
      this.#waiting.splice(this.#waiting.indexOf(w), 1);
      w.resolve(message);
    }
  }
}

function spec(roots: readonly ConfiguredRoot[]): DownstreamSpec {
  return {
    id: 'fs',
    launch: { kind: 'stdio', command: process.execPath, args: [filesystemBin], env: {}, cwd: undefined },
    options: { tools: { allow: undefined, deny: [] }, timeoutMs: 15_000, maxConcurrency: 4, era: 'auto', oauth: undefined, roots },
  };
}

const text = (r: unknown): string => (r as { content: { text?: string }[] }).content.map((c) => c.text ?? '').join('');

describe('host roots (real server-filesystem)', () => {
  let first: string;
  let second: string;
  let host: Host;
  const lines = new Lines();
  const asked: string[] = [];
  const observe: Interceptor = {
    id: 'test.observe',
    phase: 'audit',
    intercept: (ctx, next) => {
      if (ctx.method === 'server/request' && ctx.server?.id === 'fs') asked.push(ctx.serverMethod ?? '');
      return next();
    },
  };

  before(async () => {
    first = await realpath(await mkdtemp(join(tmpdir(), 'sb-roots-a-')));
    second = await realpath(await mkdtemp(join(tmpdir(), 'sb-roots-b-')));
  });

  after(async () => {
    await host?.close();
    await rm(first, { recursive: true, force: true });
    await rm(second, { recursive: true, force: true });
  });

  it('answers roots/list outside a call with the configured roots (not -32601), through the interceptor chain', async () => {
    const updated = lines.next('Updated allowed directories from MCP roots');
    host = await Host.open({
      servers: [spec([{ uri: pathToFileUri(first), name: 'first' }])],
      namespacing: 'never',
      transport: defaultTransportFactory({ environment: process.env }),
      capabilities: GATEWAY_CLIENT_CAPABILITIES,
      interceptors: [observe],
      logger: lines.logger,
    });
    await host.start();
    await updated;
    assert.deepEqual(asked, ['roots/list']);
    const listed = text(await host.callTool('list_allowed_directories', {}));
    assert.ok(listed.includes(first), listed);
    assert.ok(!listed.includes(second), listed);
  });

  it('a config change of roots alone sends notifications/roots/list_changed: the server asks again, and is not restarted', async () => {
    const updated = lines.next('Updated allowed directories from MCP roots');
    const restartsBefore = host.health()[0]?.restarts;
    await host.reconcile([spec([{ uri: pathToFileUri(second) }])]);
    await updated;
    assert.deepEqual(asked, ['roots/list', 'roots/list']);
    assert.equal(host.health()[0]?.restarts, restartsBefore);
    const listed = text(await host.callTool('list_allowed_directories', {}));
    assert.ok(listed.includes(second), listed);
    assert.ok(!listed.includes(first), listed);
  });
});
