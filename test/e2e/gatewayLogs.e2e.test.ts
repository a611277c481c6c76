// The gateway's stderr as a person and a log collector read it (#33: "logs mix JSON and prose
// and omit the server id"): one format for every line (text by default; JSON with
// --log-format json or SWITCHBOARD_LOG_FORMAT=json), the banner included, and every line about
// a downstream server names its id: its own stderr, its failed start, its readiness.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { everythingEntry, startGateway, stderrMatches, writeConfig, type RunningGateway } from '../interop/fixtures/gatewayHarness.js';

/** A "server" that writes to its stderr and never answers initialize (its start fails after 500 ms). */
const NOISY = { command: process.execPath, args: ['-e', "process.stderr.write('hello from the noisy one\\n'); setInterval(() => undefined, 60000)"] };

/** Runs a gateway fronting `noisy` and `everything` until noisy's first start failed; resolves with its stderr lines. */
async function gatewayLines(extra: readonly string[], env: Record<string, string>, failed: RegExp): Promise<string[]> {
  const config = await writeConfig({ noisy: NOISY, everything: everythingEntry() }, { servers: { noisy: { startTimeoutMs: 500 } } });
  let gateway: RunningGateway | undefined;
  try {
    gateway = await startGateway(config, ['--log-level', 'info', ...extra], [], env);
    await stderrMatches(gateway, failed);
    await stderrMatches(gateway, /everything ready/);
  } finally {
    await gateway?.stop();
    await config.remove();
  }
  return (gateway?.stderr() ?? '').split('\n').filter((line) => line !== '');
}

describe('gateway logs: one format, server ids (#33)', { timeout: 90_000 }, () => {
  it('default text: no JSON line; the banner, and each line about a server starts with its [id]', async () => {
    const lines = await gatewayLines([], {}, /\[noisy\] server noisy .*did not answer initialize/);
    assert.equal(lines.some((line) => line.startsWith('{')), false, lines.join('\n'));
    assert.ok(lines.some((line) => /^Switchboard gateway: http:\/\/\S+ \(2 servers\)$/.test(line)), lines.join('\n'));
    assert.ok(lines.includes('[noisy] hello from the noisy one'), lines.join('\n'));
    assert.ok(lines.some((line) => /^warn \[noisy\] server noisy .*next start in \d+ ms/.test(line)), lines.join('\n'));
    assert.ok(lines.some((line) => /^\[everything\] server everything ready/.test(line)), lines.join('\n'));
    for (const line of lines.filter((l) => /\bserver (noisy|everything)\b/.test(l))) assert.match(line, /^(\w+ )?\[(noisy|everything)\] /);
  });

  it('SWITCHBOARD_LOG_FORMAT=json: every line is a JSON object, the banner too; each about a server has its id in "server"', async () => {
    const lines = await gatewayLines([], { SWITCHBOARD_LOG_FORMAT: 'json' }, /"event":"server\.start_failed","server":"noisy"/);
    const entries = lines.map((line) => JSON.parse(line) as { level: string; msg: string; server?: string; event?: string });
    assert.ok(entries.some((e) => /^Switchboard gateway: http:\/\/\S+ \(2 servers\)$/.test(e.msg)));
    assert.ok(entries.some((e) => e.server === 'noisy' && e.event === 'server.stderr' && e.msg === 'hello from the noisy one'));
    assert.ok(entries.some((e) => e.server === 'noisy' && e.event === 'server.start_failed'));
    for (const entry of entries.filter((e) => /\bserver (noisy|everything)\b/.test(e.msg))) assert.ok(entry.server === 'noisy' || entry.server === 'everything', JSON.stringify(entry));
  });

  it('--log-format takes text or json; anything else is a usage error naming both', async () => {
    const config = await writeConfig({});
    try {
      await assert.rejects(startGateway(config, ['--log-format', 'yaml']), /invalid --log-format yaml \(text or json\)/);
    } finally {
      await config.remove();
    }
  });
});
