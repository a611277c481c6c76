// E2E: `switchboard gateway --stdio` with `exposure: "search"`. Over stdio there is no HTTP
// port, so the consent API gets its own loopback listener (its URL in <stateDir>/consent-url and
// on stderr); a person answers there while the agent's call_tool waits. The agent tries to
// approve its own call through call_tool and search_tools: refused.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { McpClient } from '../../src/client/mcpClient.js';
import { StdioClientTransport } from '../../src/transport/stdio/client.js';
import { MAIN, everythingEntry, gatewayStdioParams, writeConfig, type GatewayConfig } from './fixtures/gatewayHarness.js';

const run = promisify(execFile);
const text = (r: unknown): string => (r as { content: { text?: string }[] }).content.map((c) => c.text ?? '').join('');

let config: GatewayConfig;
let client: McpClient;
let consentApi: string;

before(async () => {
  config = await writeConfig({ everything: everythingEntry() }, { namespacing: 'never', exposure: 'search', consent: { providers: ['queue'], ask: ['everything/echo'] } });
  const { env } = gatewayStdioParams(config);
  const transport = new StdioClientTransport({ command: process.execPath, args: [MAIN, 'gateway', '--stdio', '--config', config.file, '--yes', '--log-level', 'error'], cwd: config.dir, stderr: 'pipe', env });
  let err = '';
  const announced = new Promise<string>((resolve) =>
    transport.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      const m = /Consent API: (http:\/\/\S+)consent\/requests/.exec(err);
      if (m !== null) resolve(m[1] as string);
    }),
  );
  client = new McpClient({ name: 'agent', version: '1' });
  await client.connect(transport);
  consentApi = await announced;
});

after(async () => {
  await client.close();
  await config.remove();
});

const cli = (...args: string[]) => run(process.execPath, [MAIN, 'consent', ...args, '--config', config.file], { cwd: config.dir });

/** Waits for the first waiting request, through the event stream (no polling). */
async function nextRequest(admin: string): Promise<{ id: string; tool: string; arguments: unknown }> {
  const controller = new AbortController();
  const response = await fetch(new URL('consent/events', consentApi), { headers: { authorization: `Bearer ${admin}` }, signal: controller.signal });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  let buffer = '';
  try {
    for (;;) {
      const m = /event: request\ndata: (.*)\n\n/.exec(buffer);
      if (m !== null) return JSON.parse(m[1] as string) as { id: string; tool: string; arguments: unknown };
      const { value, done } = await reader.read();
      if (done) throw new Error('the event stream ended');
      buffer += new TextDecoder().decode(value);
    }
  } finally {
    controller.abort();
  }
}

describe('e2e: consent with the gateway on stdio', () => {
  it('the consent API has its own loopback listener, named in consent-url; a call through call_tool waits for it and the agent cannot approve through call_tool', async () => {
    assert.equal((await readFile(join(config.dir, '.switchboard', 'consent-url'), 'utf8')).trim(), consentApi);
    assert.match(consentApi, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    const admin = (await readFile(join(config.dir, '.switchboard', 'admin-token'), 'utf8')).trim();

    const found = await client.callTool('search_tools', { query: 'approve consent request pin', limit: 50 });
    const names = ((found.structuredContent as { tools: { name: string }[] }).tools ?? []).map((t) => t.name);
    assert.deepEqual(names.filter((n) => /approv|consent|grant/i.test(n)), [], 'no tool that approves can be found');

    const waiting = nextRequest(admin);
    const pending = client.callTool('call_tool', { name: 'echo', arguments: { message: 'via call_tool' } });
    const request = await waiting;
    assert.equal(request.tool, 'echo');
    assert.deepEqual(request.arguments, { message: 'via call_tool' });

    // The agent approves its own pending call through call_tool: there is no such tool.
    for (const name of ['consent_approve', 'approve', 'call_tool', 'switchboard_consent']) {
      const refused = await client.callTool('call_tool', { name, arguments: { id: request.id, scope: { match: 'tool', duration: 'session' } } });
      assert.equal(refused.isError, true, name);
      assert.match(text(refused), /Unknown tool/);
    }
    const listed = await cli('list');
    assert.match(listed.stdout, new RegExp(`Consent request ${request.id}`), 'still waiting for a person');

    await cli('approve', request.id);
    assert.equal(text(await pending), 'via call_tool');
  });
});
