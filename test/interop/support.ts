// Interop support: locate third-party server bins, spawn them over stdio, and derive minimal
// valid arguments from a tool's inputSchema.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { McpClient } from '../../src/client/mcpClient.js';
import type { McpClientOptions } from '../../src/client/types.js';
import { StdioClientTransport } from '../../src/transport/stdio/client.js';

const require = createRequire(import.meta.url);

/** The absolute path of a package's (first) `bin` entry, read from its package.json. */
export function packageBin(pkg: string): string {
  const manifestPath = require.resolve(`${pkg}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin?: string | Record<string, string> };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin ?? {})[0];
  if (bin === undefined) throw new Error(`${pkg} has no bin`);
  return join(dirname(manifestPath), bin);
}

/** Handlers that answer anything a reference server may ask. */
export const answerEverything: NonNullable<McpClientOptions['handlers']> = {
  elicitation: () => ({ action: 'accept', content: {} }),
  sampling: (params) => ({ role: 'assistant', content: { type: 'text', text: `sampled ${params.messages.length} message(s)` }, model: 'interop-model', stopReason: 'endTurn' }),
  roots: () => [{ uri: 'file:///tmp', name: 'tmp' }],
};

/** Spawns `script args` with Node over stdio and connects a client. */
export async function stdioClient(
  script: string,
  args: readonly string[],
  options: McpClientOptions = {},
  cwd?: string,
  env: Readonly<Record<string, string>> = {},
): Promise<McpClient> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [script, ...args],
    stderr: 'ignore',
    ...(cwd === undefined ? {} : { cwd }),
    env: { PATH: process.env['PATH'], HOME: process.env['HOME'], ...env },
  });
  const client = new McpClient({ name: 'switchboard-interop', version: '0.1.0' }, { defaultTimeoutMs: 20_000, probeTimeoutMs: 5000, handlers: answerEverything, ...options });
  await client.connect(transport);
  return client;
}

type JsonSchema = Record<string, unknown>;

/** A minimal value for one property schema. */
export function minimalValue(schema: JsonSchema): unknown {
  if ('default' in schema) return schema['default'];
  if (Array.isArray(schema['enum']) && schema['enum'].length > 0) return schema['enum'][0];
  if ('const' in schema) return schema['const'];
  const type = Array.isArray(schema['type']) ? schema['type'][0] : schema['type'];
  switch (type) {
    case 'string':
      return schema['format'] === 'uri' ? 'data:text/plain;base64,aGVsbG8=' : 'test';
    case 'number':
    case 'integer':
      return typeof schema['minimum'] === 'number' ? schema['minimum'] : 1;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return minimalArgs(schema);
    default:
      return 'test';
  }
}

/** Minimal valid arguments: every required property, with a minimal value. */
export function minimalArgs(schema: JsonSchema): Record<string, unknown> {
  const properties = (schema['properties'] ?? {}) as Record<string, JsonSchema>;
  const required = (schema['required'] ?? []) as string[];
  const args: Record<string, unknown> = {};
  for (const name of required) args[name] = minimalValue(properties[name] ?? {});
  return args;
}
