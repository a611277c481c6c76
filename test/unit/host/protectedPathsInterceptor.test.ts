// `policy.protected-paths` (issue #31): which methods it reads, the read-only rule for ancestors,
// the roots it leaves out, its start-up warnings and its place in the chain. Judged by whether the
// request reached `next` (the server) and by the recorded decision.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig } from '../../../src/host/config.js';
import { buildChain } from '../../../src/host/gatewayChain.js';
import { DeniedError, interceptContext, type InterceptContextInit, type Interceptor } from '../../../src/host/interceptors.js';
import { gatewayProtectedPaths, protectedPathsInterceptor, protectedPathWarnings, PROTECTED_PATHS_ID } from '../../../src/host/protectedPathsInterceptor.js';
import { protectedPathSet } from '../../../src/host/protectedPaths.js';

const T = { timeout: 5_000 };
const config = parseConfig(
  JSON.stringify({
    mcpServers: { fs: { command: 'node', args: ['fs.js', '/proj'], cwd: '/proj' } },
    switchboard: { stateDir: '/proj/.switchboard', roots: ['/proj', '/proj/.switchboard'] },
  }),
  { file: '/proj/switchboard.json', env: {} },
);
const paths = protectedPathSet(gatewayProtectedPaths(config, '/'), { caseInsensitive: false });
const interceptor = protectedPathsInterceptor({ paths, config: () => config, cwd: '/' });

/** Runs one request through the interceptor: whether it reached the server, and what it answered. */
async function run(init: Partial<InterceptContextInit>, answer: unknown = { content: [] }): Promise<{ reached: boolean; result?: unknown; error?: unknown; decisions: readonly unknown[] }> {
  const ctx = interceptContext({ method: 'tools/call', principal: undefined, session: undefined, server: { id: 'fs' }, params: {}, signal: new AbortController().signal, ...init });
  let reached = false;
  try {
    const result = await interceptor.intercept(ctx, () => {
      reached = true;
      return Promise.resolve(answer);
    });
    return { reached, result, decisions: ctx.decisions };
  } catch (error) {
    return { reached, error, decisions: ctx.decisions };
  }
}

const readOnly = { annotations: { readOnlyHint: true } };

describe('policy.protected-paths', () => {
  it('self-approval: a tools/call naming the admin token never reaches the server; the denial is recorded', T, async () => {
    const out = await run({ params: { name: 'read_text_file', arguments: { path: '.switchboard/admin-token' } }, definition: readOnly });
    assert.equal(out.reached, false);
    assert.ok(out.error instanceof DeniedError && out.error.interceptor === PROTECTED_PATHS_ID);
    assert.deepEqual(out.decisions.map((d) => (d as { interceptor: string; outcome: string }).outcome), ['deny']);
  });

  it('a denial is a rejected promise, never a synchronous throw; a clear call returns what next() returned', T, async () => {
    const ctx = interceptContext({ method: 'tools/call', principal: undefined, session: undefined, server: { id: 'fs' }, params: { name: 'read_text_file', arguments: { path: '.switchboard/admin-token' } }, definition: readOnly, signal: new AbortController().signal });
    let denied: Promise<unknown> | undefined;
    assert.doesNotThrow(() => (denied = interceptor.intercept(ctx, () => Promise.resolve({ content: [] }))));
    await assert.rejects(denied as Promise<unknown>, DeniedError);
    const clear = interceptContext({ method: 'tools/call', principal: undefined, session: undefined, server: { id: 'fs' }, params: { name: 'read_text_file', arguments: { path: 'src/a.ts' } }, definition: readOnly, signal: new AbortController().signal });
    const answer = Promise.resolve({ content: [{ type: 'text', text: 'ok' }] });
    assert.equal(interceptor.intercept(clear, () => answer), answer);
  });

  it('reload: a server moved to another folder is checked against its new folder at once (its folders are kept per config entry)', T, async () => {
    const before = parseConfig(JSON.stringify({ mcpServers: { fs: { command: 'node', args: ['fs.js'], cwd: '/elsewhere' } }, switchboard: { stateDir: '/proj/.switchboard' } }), { file: '/proj/switchboard.json', env: {} });
    const after = parseConfig(JSON.stringify({ mcpServers: { fs: { command: 'node', args: ['fs.js'], cwd: '/proj' } }, switchboard: { stateDir: '/proj/.switchboard' } }), { file: '/proj/switchboard.json', env: {} });
    let live = before;
    const reloading = protectedPathsInterceptor({ paths, config: () => live, cwd: '/' });
    const reached = async (): Promise<boolean> => {
      const ctx = interceptContext({ method: 'tools/call', principal: undefined, session: undefined, server: { id: 'fs' }, params: { name: 'read_text_file', arguments: { path: '.switchboard/admin-token' } }, definition: readOnly, signal: new AbortController().signal });
      let hit = false;
      await reloading.intercept(ctx, () => ((hit = true), Promise.resolve({ content: [] }))).catch(() => undefined);
      return hit;
    };
    assert.equal(await reached(), true, '/elsewhere/.switchboard is not the state folder');
    live = after;
    assert.equal(await reached(), false, 'after the reload the same words name /proj/.switchboard/admin-token');
  });

  it('resources/read, prompts/get and completion/complete are read too', T, async () => {
    for (const init of [
      { method: 'resources/read' as const, params: { uri: 'file:///proj/.switchboard/pins.db' } },
      { method: 'resources/subscribe' as const, params: { uri: 'FILE:///proj/switchboard.json' } },
      { method: 'prompts/get' as const, params: { name: 'summarise', arguments: { file: '/proj/switchboard.json' } } },
      { method: 'completion/complete' as const, params: { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'file', value: '/proj/.switchboard/' } } },
    ]) {
      const out = await run(init);
      assert.equal(out.reached, false, init.method);
    }
  });

  it('state reset: a tool not annotated read-only is refused an ancestor of the state folder; a read-only one may list it', T, async () => {
    assert.equal((await run({ params: { name: 'move_file', arguments: { source: '/proj', destination: '/elsewhere' } }, definition: { annotations: { readOnlyHint: false } } })).reached, false);
    assert.equal((await run({ params: { name: 'delete_tree', arguments: { path: '.' } }, definition: {} })).reached, false, 'no annotations: may change files');
    assert.equal((await run({ params: { name: 'list_directory', arguments: { path: '/proj' } }, definition: readOnly })).reached, true);
  });

  it('ordinary calls reach the server; the tool name itself is not read as a path', T, async () => {
    assert.equal((await run({ params: { name: 'switchboard.json', arguments: { path: '/proj/src/a.ts', content: 'x' } }, definition: {} })).reached, true);
  });

  it('roots: a root that is the state folder is left out of the answer to roots/list; the project stays', T, async () => {
    const out = await run({ method: 'server/request', serverMethod: 'roots/list', params: {} }, { roots: [{ uri: 'file:///proj' }, { uri: 'file:///proj/.switchboard' }, { uri: 'file:///proj/.switchboard/oauth' }] });
    assert.deepEqual(out.result, { roots: [{ uri: 'file:///proj' }] });
    assert.equal((out.decisions[0] as { outcome: string }).outcome, 'change');
  });

  it('other questions of a server (elicitation, sampling) pass untouched', T, async () => {
    const out = await run({ method: 'server/request', serverMethod: 'elicitation/create', params: { message: '/proj/.switchboard/admin-token' } }, { action: 'decline' });
    assert.equal(out.reached, true);
  });

  it('start: warns of a root that names the state folder and an argument that contains the config', T, () => {
    const lines = protectedPathWarnings(config, paths, '/');
    assert.ok(lines.some((l) => /server fs: its argument "\/proj" contains the gateway's config file/.test(l)), lines.join('\n'));
    assert.ok(lines.some((l) => /server fs: its root file:\/\/\/proj\/.switchboard names the gateway's state folder/.test(l)), lines.join('\n'));
  });

  it('chain: it runs in the policy phase, before the policy and consent', T, () => {
    const stub = (id: string, phase: Interceptor['phase']): Interceptor => ({ id, phase, intercept: (_c, next) => next() });
    const chain = buildChain({ policy: stub('policy', 'policy'), consent: stub('consent', 'consent'), paths: interceptor, scanner: stub('trust.scanner', 'trust') });
    assert.deepEqual(chain.map((i) => i.id), ['trust.scanner', PROTECTED_PATHS_ID, 'policy', 'consent']);
  });
});
