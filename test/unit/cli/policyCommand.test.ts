// `switchboard policy test` against a real audit database, and `switchboard scan CONFIG --trifecta`.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SqliteAuditLog } from '../../../src/store/sqliteAudit.js';
import { cli } from './cliProcess.js';

describe('cli: switchboard policy test, scan --trifecta', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'switchboard-policy-cli-'));
    const config = {
      mcpServers: { notes: { command: 'n' }, web: { command: 'w' }, chat: { command: 'c' }, calc: { command: 'k' } },
      switchboard: {
        stateDir: 'state',
        servers: { notes: { labels: ['private-data'] }, web: { toolLabels: { fetch: ['untrusted-content'] } }, chat: { labels: ['egress'] } },
        policy: { rules: [{ id: 'no-calc', when: 'server.id == "calc"', outcome: 'deny', reason: 'calc is retired' }] },
      },
    };
    await writeFile(join(dir, 'switchboard.json'), JSON.stringify(config));
    await writeFile(join(dir, 'rules.json'), JSON.stringify([{ id: 'to-evil', when: 'has(args.to) && args.to == "x"', outcome: 'deny' }]));
    await writeFile(join(dir, 'bad-rules.json'), JSON.stringify({ rules: [{ id: 'typo', when: 'tool.nmae == "x"', outcome: 'deny' }] }));
    const log = SqliteAuditLog.open(join(dir, 'state', 'audit.db'));
    const entry = (server: string, name: string) => ({ time: '2026-12-02T04:00:00.000Z', kind: 'request', method: 'tools/call', principal: 'alice', session: 's', server, name, arguments: { to: 'x' }, decisions: [], outcome: 'ok' as const, latencyMs: 1 });
    for (const [s, n] of [['notes', 'notes__read'], ['web', 'web__fetch'], ['chat', 'chat__send'], ['calc', 'calc__add']]) await log.append(entry(s as string, n as string));
    await log.close();
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('prints per-rule hits and the recorded calls whose decision would change', async () => {
    const out = await cli(['policy', 'test', '--config', join(dir, 'switchboard.json')]);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /4 of 4 recorded requests replayed/);
    assert.match(out.stdout, /no-calc\s+deny\s+1/);
    assert.match(out.stdout, /2 decision\(s\) would change/);
    assert.match(out.stdout, /chat chat__send by alice .*\n\s+was allow \(none\) -> would be ask \(builtin\.trifecta\): untrusted content entered the session with web\/web__fetch/);
    assert.match(out.stdout, /was allow \(none\) -> would be deny \(no-calc\): calc is retired/);
  });

  it('--rules: an argument rule is reported as "needs arguments"', async () => {
    const out = await cli(['policy', 'test', '--config', join(dir, 'switchboard.json'), '--rules', join(dir, 'rules.json')]);
    assert.match(out.stdout, /to-evil\s+deny\s+0\s+4 \(needs arguments\)/);
  });

  it('--rules with a rule naming an unknown field fails with its JSON path', async () => {
    const out = await cli(['policy', 'test', '--config', join(dir, 'switchboard.json'), '--rules', join(dir, 'bad-rules.json')]);
    assert.equal(out.code, 1);
    assert.match(out.stderr, /\$\.rules\[0\]: "when" does not compile: No such key: nmae/);
  });

  it('scan CONFIG --trifecta prints which servers complete the trifecta, starting nothing', async () => {
    const out = await cli(['scan', join(dir, 'switchboard.json'), '--trifecta']);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /notes \+ web \+ chat: private data from notes; untrusted content from web; out through chat/);
    assert.match(out.stdout, /asked once the first two legs entered/);
  });

  it('scan CONFIG --trifecta with no labels written: inferred labels with their evidence, and a GitHub server completes it alone', async () => {
    const file = join(dir, 'unlabelled.json');
    const servers = {
      gh: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'] },
      files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me'] },
      mail: { command: 'node', args: ['/opt/mail.js'] },
      quiet: { command: 'node', args: ['/opt/mail.js'] },
    };
    await writeFile(file, JSON.stringify({ mcpServers: servers, switchboard: { stateDir: 'state2', servers: { quiet: { inferLabels: false } } } }));
    const out = await cli(['scan', file, '--trifecta']);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /from configured and inferred labels/);
    assert.match(out.stdout, /\n {2}gh: private-data, untrusted-content, egress, destructive\n {4}inferred: private-data, untrusted-content, egress, destructive from the github catalog \(package @modelcontextprotocol\/server-github\)/);
    assert.match(out.stdout, /\n {2}files: private-data, destructive\n/);
    assert.match(out.stdout, /\n {2}mail: untrusted-content\n {4}inferred: untrusted-content from an unvetted server/);
    assert.match(out.stdout, /\n {2}quiet: no labels\n/, 'inferLabels: false leaves the server with its configured labels only');
    assert.match(out.stdout, /\n {2}gh: private data from gh; untrusted content from gh; out through gh\n/);
  });
});
