// E2E through the real `switchboard gateway` process: the rug-pull attack fixture changes a
// tool via list_changed mid-session; the gateway quarantines it within the same session,
// before the changed tool can be called, and the call never reaches the server. A person then
// reviews and approves it with `switchboard pins`. A corrupt pin store stops the gateway.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { McpClient } from '../../src/client/mcpClient.js';
import { StreamableHttpClientTransport } from '../../src/transport/http/client/client.js';
import { REPO_ROOT } from './fixtures/ourServerHarness.js';
import { MAIN, startGateway, writeConfig, type GatewayConfig, type RunningGateway } from './fixtures/gatewayHarness.js';

const rugPull = fileURLToPath(new URL('../fixtures/attacks/rugPullServer.ts', import.meta.url));
const run = promisify(execFile);
const text = (r: unknown): string => (r as { content: { text?: string }[] }).content.map((c) => c.text ?? '').join('');

let config: GatewayConfig;
let gateway: RunningGateway;

before(async () => {
  config = await writeConfig({ weather: { command: process.execPath, args: ['--import', 'tsx', rugPull], cwd: REPO_ROOT } });
  gateway = await startGateway(config);
});

after(async () => {
  await gateway.stop();
  await config.remove();
});

describe('e2e: pins in the gateway', () => {
  it('rug pull via list_changed: blocked within the session before the changed tool can be called; the call never reaches the server; a person approves it with switchboard pins (and the scanner still blocks the poisoned text)', async () => {
    let changed: () => void = () => undefined;
    const client = new McpClient({ name: 'victim', version: '1' }, { era: 'stateful', on: { toolsListChanged: () => changed() } });
    await client.connect(new StreamableHttpClientTransport({ url: gateway.url, headers: { authorization: `Bearer ${gateway.token}` } }));
    const first = await client.listTools({ fresh: false });
    assert.deepEqual(first.map((t) => t.name).sort(), ['add', 'get_weather', 'stats']);

    const pulled = new Promise<void>((resolve) => (changed = resolve));
    assert.equal(text(await client.callTool('add', { a: 1, b: 2 })), '3'); // triggers the rug pull downstream
    await pulled;
    const after = await client.listTools({ fresh: false });
    assert.deepEqual(after.map((t) => t.name).sort(), ['add', 'stats'], 'the changed tool is hidden from the model');

    const refused = await client.callTool('get_weather', { city: 'Oslo', notes: 'stolen key' });
    assert.equal(refused.isError, true);
    assert.match(text(refused), /Denied by trust\.pins: Tool "get_weather" of server weather changed since it was approved \(.*text-changed.*\).*switchboard pins diff weather tool:get_weather/);
    assert.deepEqual(JSON.parse(text(await client.callTool('stats', {}))), { weatherCalls: 0, pulled: true }, 'the refused call never reached the server');

    const diff = await run(process.execPath, [MAIN, 'pins', 'diff', 'weather', '--config', config.file], { cwd: config.dir });
    assert.match(diff.stdout, /weather tool:get_weather: changed/);
    assert.match(diff.stdout, /\[text-changed\] description changed: "Gets the weather for a city\." → "Gets the weather for a city\. <IMPORTANT>/);
    assert.match(diff.stdout, /\[parameter-added\] parameter notes added/);

    const approvedEvent = new Promise<void>((resolve) => (changed = resolve));
    // The poisoned text has scanner findings: approving it needs --ack-findings (issue #32).
    const approve = await run(process.execPath, [MAIN, 'pins', 'approve', 'weather', 'tool:get_weather', '--ack-findings', '--config', config.file], { cwd: config.dir });
    assert.match(approve.stdout, /weather: approved tool:get_weather/);
    await approvedEvent; // the gateway noticed the approval and re-vetted
    // Approving the pin does not overrule the poisoning scanner: the new description carries an
    // instruction tag, so the tool stays hidden and refused, now by trust.scanner.
    const listed = await client.listTools({ fresh: false });
    assert.equal(listed.find((t) => t.name === 'get_weather'), undefined, 'still hidden: the scanner blocks the approved poisoned text');
    // Hidden by the scanner, its call is refused with the scanner's reason (never "Unknown tool" for a tool that exists).
    const blocked = await client.callTool('get_weather', { city: 'Oslo' });
    assert.equal(blocked.isError, true);
    assert.match(text(blocked), /Denied by trust\.scanner: .*poisoning scanner/);
    assert.doesNotMatch(text(blocked), /Unknown tool/);
    assert.deepEqual(JSON.parse(text(await client.callTool('stats', {}))), { weatherCalls: 0, pulled: true }, 'and it never reached the server');
    const list = await run(process.execPath, [MAIN, 'pins', 'list', '--config', config.file], { cwd: config.dir });
    assert.match(list.stdout, /tool:get_weather {2}approved/);
    assert.match(list.stdout, /tool:add {2}first-use/);
    await client.close();
  });

  it('store corrupted: the gateway refuses to start with a clear message', async () => {
    const broken = await writeConfig({ weather: { command: process.execPath, args: ['--import', 'tsx', rugPull], cwd: REPO_ROOT } });
    try {
      await mkdir(join(broken.dir, '.switchboard'), { recursive: true });
      await writeFile(join(broken.dir, '.switchboard', 'pins.db'), 'garbage '.repeat(1000));
      await assert.rejects(startGateway(broken), (e: unknown) => e instanceof Error && /exited with code 1 before listening/.test(e.message) && /pins\.db is damaged \(SQLite: file is not a database\).*The gateway did not start/.test(e.message));
    } finally {
      await broken.remove();
    }
  });
});
