// Review (issue #32): the person sees what the scanner sees, and a quarantined tool is explained
// to the model. Through the real `switchboard gateway` process and a stdio server that logs every
// request it receives; judged by that log, never by what the gateway says about itself.
// https://modelcontextprotocol.io/specification/2025-11-25/server/tools#security-considerations
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, afterEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MAIN, startGateway, userFolderEnv, writeConfig, type GatewayConfig, type RunningGateway } from '../interop/fixtures/gatewayHarness.js';
import { refusalText } from '../fixtures/refusal.js';

const TIMEOUT = { timeout: 60_000 };
const SERVER = fileURLToPath(new URL('./fixtures/callLogServer.ts', import.meta.url));

/** The call-log server, serving the tools `FIXTURE_TOOLS` names in the variant `FIXTURE_VARIANT` (both from the gateway's environment). */
const FILES_SERVER = {
  command: process.execPath,
  args: ['--import', import.meta.resolve('tsx'), SERVER],
  cwd: '.',
  env: { CALL_LOG: 'calls.jsonl', FIXTURE_VARIANT: '${env:FIXTURE_VARIANT:-v1}', FIXTURE_TOOLS: '${env:FIXTURE_TOOLS:-}' },
};

/** The tools/call requests the server logged. */
async function calls(config: GatewayConfig): Promise<{ variant: string; name?: string }[]> {
  const text = await readFile(join(config.dir, 'calls.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { variant: string; method: string; name?: string })
    .filter((r) => r.method === 'tools/call');
}

async function connect(running: RunningGateway): Promise<Client> {
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(running.url, { requestInit: { headers: { Authorization: `Bearer ${running.token}` } } }));
  return client;
}

/** `switchboard pins <args>` against the config, with its exit code and output. */
async function pins(config: GatewayConfig, args: readonly string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [MAIN, 'pins', ...args, '--config', config.file], { cwd: config.dir, env: { ...process.env, NODE_OPTIONS: '', ...userFolderEnv(config) } });
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

describe('e2e: review through the real gateway (issue #32)', () => {
  let config: GatewayConfig | undefined;
  let running: RunningGateway | undefined;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
    await config?.remove();
    config = undefined;
  }, TIMEOUT);
  after(async () => running?.stop(), TIMEOUT);

  /** Pins v1 of the server (a first start), then starts it again as `variant`. */
  async function rugPull(variant: 'rug' | 'poison' | 'poison-schema', tools: string): Promise<{ config: GatewayConfig; running: RunningGateway }> {
    config = await writeConfig({ files: FILES_SERVER });
    running = await startGateway(config, [], [], { FIXTURE_VARIANT: 'v1', FIXTURE_TOOLS: tools });
    const first = await connect(running);
    assert.ok((await first.listTools()).tools.some((t) => t.name === 'weather'), 'v1 is pinned on first sight');
    await first.close();
    await running.stop();
    running = await startGateway(config, [], [], { FIXTURE_VARIANT: variant, FIXTURE_TOOLS: tools });
    return { config, running };
  }

  it('quarantined only tool: the call is refused with the quarantine reason, not Unknown tool', TIMEOUT, async () => {
    const { config: c, running: r } = await rugPull('rug', 'weather');
    const client = await connect(r);
    assert.deepEqual((await client.listTools()).tools.map((t) => t.name), [], 'the only tool is withheld from the list');
    const text = await refusalText(client.callTool({ name: 'weather', arguments: { city: 'Oslo' } }));
    await refusalText(client.callTool({ name: 'weather', arguments: { city: 'Bergen' } }));
    await client.listTools();
    await client.close();
    assert.doesNotMatch(text, /Unknown tool/);
    const logged = r.stderr().split('\n').filter((line) => /quarantined: tool files\/weather/.test(line));
    assert.equal(logged.length, 1, `the quarantine is logged once, not per call or list:\n${r.stderr()}`);
    assert.match(text, /weather/, 'the refusal names the tool');
    assert.match(text, /switchboard pins (diff|approve)/, 'the refusal names the review command');
    assert.deepEqual(await calls(c), [], 'the quarantined tool never reached the server');
  });

  it('rug pull with a poisoned description: pins approve without --ack-findings is refused and the tool stays quarantined (never reaches the server)', TIMEOUT, async () => {
    const { config: c, running: r } = await rugPull('poison', 'weather,read_file');
    const client = await connect(r);
    assert.ok(!(await client.listTools()).tools.some((t) => t.name === 'weather'), 'the poisoned weather is withheld');
    const diff = await pins(c, ['diff', 'files', 'tool:weather']);
    assert.equal(diff.code, 0, diff.out);
    assert.match(diff.out, /finding/i, 'pins diff shows the scanner’s findings');
    assert.match(diff.out, /id_rsa|IMPORTANT/, 'with the evidence');
    const approve = await pins(c, ['approve', 'files', 'tool:weather']);
    assert.notEqual(approve.code, 0, `approve without --ack-findings must fail: ${approve.out}`);
    assert.match(approve.out, /--ack-findings/);
    assert.doesNotMatch(approve.out, /approved tool:weather/);
    // The gateway notices a pins change within a second; a call still refused after the store was read again proves nothing changed.
    const listed = await pins(c, ['list', 'files']);
    assert.match(listed.out, /tool:weather\s+QUARANTINED/, listed.out);
    const text = await refusalText(client.callTool({ name: 'weather', arguments: { city: 'Oslo' } }));
    assert.match(text, /switchboard pins/);
    await client.callTool({ name: 'read_file', arguments: { path: 'notes.txt' } });
    await client.close();
    assert.deepEqual(
      (await calls(c)).filter((x) => x.variant === 'poison').map((x) => x.name),
      ['read_file'],
      'the call after it reached the server; the quarantined weather never did',
    );
  });

  /** `GET|POST /console/api/<path>` with the admin token, as a non-browser client (same origin). */
  async function consoleApi(r: RunningGateway, c: GatewayConfig, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
    const admin = (await readFile(join(c.dir, '.switchboard', 'admin-token'), 'utf8')).trim();
    const response = await fetch(new URL(`/console/api/${path}`, r.url), {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${admin}`, origin: r.url.origin, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  it('rug pull hiding the order in inputSchema.$comment (description unchanged): pins diff and the console Review show the finding; approving without acknowledgement is refused on both; the tool never reaches the server', TIMEOUT, async () => {
    const { config: c, running: r } = await rugPull('poison-schema', 'weather,read_file');
    const client = await connect(r);
    assert.ok(!(await client.listTools()).tools.some((t) => t.name === 'weather'), 'the changed weather is withheld');
    const diff = await pins(c, ['diff', 'files', 'tool:weather']);
    assert.match(diff.out, /\$comment/u, `the diff shows the changed field: ${diff.out}`);
    assert.match(diff.out, /finding/iu, 'and the scanner’s findings next to it');
    assert.match(diff.out, /id_rsa/u, 'with the evidence');
    const review = await consoleApi(r, c, 'review');
    const item = (review.body['items'] as { identity: string; item: string; findings: unknown[] }[]).find((i) => i.item === 'tool:weather');
    assert.ok(item !== undefined && item.findings.length > 0, `the console Review lists the findings: ${JSON.stringify(review.body)}`);
    const consoleApprove = await consoleApi(r, c, 'review/approve', { identity: item.identity, item: 'tool:weather' });
    assert.equal(consoleApprove.status, 409, `the console refuses an approval without acknowledgeFindings: ${JSON.stringify(consoleApprove.body)}`);
    assert.match(JSON.stringify(consoleApprove.body['findings']), /id_rsa/u, `and answers with the findings: ${JSON.stringify(consoleApprove.body)}`);
    const cliApprove = await pins(c, ['approve', 'files', 'tool:weather']);
    assert.notEqual(cliApprove.code, 0, cliApprove.out);
    assert.match((await pins(c, ['list', 'files'])).out, /tool:weather\s+QUARANTINED/u);
    const text = await refusalText(client.callTool({ name: 'weather', arguments: { city: 'Oslo' } }));
    assert.doesNotMatch(text, /Unknown tool/u);
    await client.callTool({ name: 'read_file', arguments: { path: 'notes.txt' } });
    await client.close();
    assert.deepEqual(
      (await calls(c)).filter((x) => x.variant === 'poison-schema').map((x) => x.name),
      ['read_file'],
      'the call after it reached the server; the changed weather never did',
    );
  });

  it('scanner block on first sight: each call is refused naming the scanner (never Unknown tool), logged once over repeated lists and calls, counted on the console', TIMEOUT, async () => {
    config = await writeConfig({ files: FILES_SERVER });
    running = await startGateway(config, [], [], { FIXTURE_VARIANT: 'poison', FIXTURE_TOOLS: 'weather,read_file' });
    const client = await connect(running);
    for (let i = 0; i < 2; i++) assert.ok(!(await client.listTools()).tools.some((t) => t.name === 'weather'), 'hidden on every list');
    const refusals = [await refusalText(client.callTool({ name: 'weather', arguments: { city: 'Oslo' } })), await refusalText(client.callTool({ name: 'weather', arguments: { city: 'Bergen' } }))];
    for (const text of refusals) {
      assert.match(text, /poisoning scanner/u, text);
      assert.doesNotMatch(text, /Unknown tool/u);
    }
    await client.callTool({ name: 'read_file', arguments: { path: 'notes.txt' } });
    await client.close();
    const logged = running.stderr().split('\n').filter((line) => /scanner: tool files\/weather: block/u.test(line));
    assert.equal(logged.length, 1, `the block is logged once, not per list or call:\n${running.stderr()}`);
    const overview = await consoleApi(running, config, 'overview');
    const files = (overview.body['servers'] as { id: string; counts: { scannerBlocked: number } }[]).find((s) => s.id === 'files');
    assert.equal(files?.counts.scannerBlocked, 1, `counted on the console: ${JSON.stringify(overview.body['servers'])}`);
    assert.deepEqual((await calls(config)).map((x) => x.name), ['read_file'], 'the blocked tool never reached the server');
  });
});
