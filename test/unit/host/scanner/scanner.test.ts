import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Host } from '../../../../src/host/host.js';
import { DeniedError } from '../../../../src/host/interceptors.js';
import { Scanner } from '../../../../src/host/scanner/scanner.js';
import { attackServer, REACHED } from '../../../fixtures/attacks/serve.js';
import { poisonedTool } from '../../../fixtures/attacks/poisonedTool.js';
import { memoryServers, memorySpec } from '../support/memoryServers.js';
import type { ScanMode } from '../../../../src/host/configTypes.js';

const modes: Record<string, ScanMode> = { calculator: 'block', lenient: 'warn', unscanned: 'off' };

describe('host/scanner: Scanner in the host (trust phase)', () => {
  let host: Host;
  const reports: string[] = [];
  const scanner = new Scanner({ modeOf: (id) => modes[id], onReport: (id, r) => reports.push(`${id}/${r.item}:${r.verdict}`) });
  const reached: string[] = [];
  const servers = memoryServers((id) => attackServer({ ...poisonedTool, server: id }, (name) => reached.push(`${id}:${name}`)));
  before(async () => {
    host = await Host.open({ servers: [memorySpec('calculator'), memorySpec('lenient'), memorySpec('unscanned')], transport: servers.factory, interceptors: [scanner.interceptor], namespacing: 'always' });
    await host.start();
  });
  after(() => host.close());

  it('hides a blocked tool from the list on a block-mode server (poisoned tool never reaches the model)', async () => {
    const names = (await host.listTools()).map((t) => t.name);
    assert.ok(!names.includes('calculator__sum'));
    assert.ok(names.includes('calculator__difference'));
  });

  it('refuses a call to a blocked tool before it reaches the server, with a reason naming the rules', async () => {
    await host.listTools();
    await assert.rejects(host.callTool('calculator__sum', { x: 1, y: 2 }), (error: unknown) => {
      assert.ok(error instanceof DeniedError);
      assert.equal(error.interceptor, 'trust.scanner');
      assert.match(error.reason, /blocked by the poisoning scanner \(combination\//);
      assert.match(error.reason, /switchboard scan/);
      return true;
    });
    assert.ok(!reached.includes('calculator:sum'), 'the call never reached the server');
  });

  it('refuses a blocked tool called without any list first (verdict computed once, off the list path)', async () => {
    const fresh = new Scanner();
    const h = await Host.open({ servers: [memorySpec('calculator')], transport: memoryServers(() => attackServer(poisonedTool)).factory, interceptors: [fresh.interceptor] });
    await h.start();
    try {
      await assert.rejects(h.callTool('sum', { x: 1, y: 2 }), DeniedError);
      const definition = h.tool('sum')?.definition;
      assert.equal(definition === undefined ? undefined : fresh.verdictOf(definition)?.verdict, 'block');
    } finally {
      await h.close();
    }
  });

  it('warn mode keeps the tool listed and callable, and reports it', async () => {
    const names = (await host.listTools()).map((t) => t.name);
    assert.ok(names.includes('lenient__sum'));
    const result = (await host.callTool('lenient__sum', { x: 1, y: 2 })) as { content: { text: string }[] };
    assert.equal(result.content[0]?.text, REACHED);
    assert.ok(reports.includes('lenient/sum:block'));
  });

  it('off mode does not scan that server', async () => {
    assert.ok((await host.listTools()).some((t) => t.name === 'unscanned__sum'));
    assert.ok(!reports.some((r) => r.startsWith('unscanned/')));
  });

  it('clean tools stay callable through the scanner', async () => {
    const result = (await host.callTool('calculator__difference', { x: 3, y: 2 })) as { content: { text: string }[] };
    assert.equal(result.content[0]?.text, REACHED);
  });

  it('an unchanged registry is scanned once (verdicts are precomputed, lists are cached)', async () => {
    const first = await host.listTools();
    const second = await host.listTools();
    assert.equal(first, second);
  });
});
