import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryNameAssignmentStore } from '../../../src/host/memoryStores.js';
import { isExposableName } from '../../../src/host/nameRules.js';
import { NamespaceCollisionError, Namespacer, type NameAssignmentStore } from '../../../src/host/namespacing.js';
import { isMcpError } from '../../../src/util/errors.js';

const entries = (map: ReadonlyMap<string, string>) => Object.fromEntries(map);

describe('host/namespacing: always', () => {
  it('prefixes every name with the server id and separator, and resolves back', () => {
    const ns = new Namespacer({ mode: 'always' });
    assert.deepEqual(entries(ns.assign('tool', 'fs', ['read_file', 'write_file'])), { read_file: 'fs__read_file', write_file: 'fs__write_file' });
    assert.deepEqual(ns.resolve('tool', 'fs__read_file'), { serverId: 'fs', name: 'read_file' });
    assert.equal(ns.resolve('tool', 'read_file'), undefined);
    assert.equal(ns.resolve('prompt', 'fs__read_file'), undefined, 'tools and prompts are separate namespaces');
  });

  it('uses the configured separator', () => {
    const ns = new Namespacer({ mode: 'always', separator: '.' });
    assert.equal(ns.assign('prompt', 'git', ['commit']).get('commit'), 'git.commit');
  });

  it('shortens a name over 64 characters deterministically with a hash suffix', () => {
    const long = `x${'y'.repeat(70)}`;
    const a = new Namespacer({ mode: 'always' }).assign('tool', 'srv', [long]).get(long) as string;
    const b = new Namespacer({ mode: 'always' }).assign('tool', 'srv', [long]).get(long) as string;
    assert.equal(a, b);
    assert.equal(a.length, 64);
    assert.match(a, /^srv__xy+_[0-9a-f]{8}$/);
    assert.notEqual(new Namespacer({ mode: 'always' }).assign('tool', 'other', [long]).get(long)?.slice(-8), a.slice(-8), 'the hash covers the server id');
  });

  it('maps an invalid tool name deterministically, keeping two that clean up alike apart', () => {
    const ns = new Namespacer({ mode: 'always' });
    const map = ns.assign('tool', 'db', ['run query', 'run_query', 'run,query']);
    assert.equal(map.get('run_query'), 'db__run_query');
    const spaced = map.get('run query') as string;
    const comma = map.get('run,query') as string;
    assert.match(spaced, /^db__run_query_[0-9a-f]{8}$/);
    assert.notEqual(spaced, comma);
    for (const exposed of map.values()) assert.ok(isExposableName(exposed), exposed);
    assert.deepEqual(ns.resolve('tool', spaced), { serverId: 'db', name: 'run query' });
  });

  it('prefix ambiguity: "a__b" + "c" and "a" + "b__c" get distinct names (the separator inside a name is collapsed)', () => {
    const ns = new Namespacer({ mode: 'always' });
    assert.equal(ns.assign('tool', 'a', ['b__c']).get('b__c'), 'a__b_c');
    assert.equal(ns.assign('tool', 'a__b', ['c']).get('c'), 'a__b__c');
    assert.deepEqual(ns.resolve('tool', 'a__b_c'), { serverId: 'a', name: 'b__c' });
    assert.deepEqual(ns.resolve('tool', 'a__b__c'), { serverId: 'a__b', name: 'c' });
  });
});

describe('host/namespacing: on-collision', () => {
  it('the first server keeps the bare name, a later one is prefixed', () => {
    const ns = new Namespacer({ mode: 'on-collision' });
    assert.deepEqual(entries(ns.assign('tool', 'fs', ['read_file', 'search'])), { read_file: 'read_file', search: 'search' });
    assert.deepEqual(entries(ns.assign('tool', 'web', ['search', 'fetch'])), { search: 'web__search', fetch: 'fetch' });
    assert.deepEqual(ns.resolve('tool', 'search'), { serverId: 'fs', name: 'search' });
    assert.deepEqual(ns.resolve('tool', 'web__search'), { serverId: 'web', name: 'search' });
  });

  it('a restart with servers connecting in the other order renames nothing (persisted)', async () => {
    const store = new MemoryNameAssignmentStore();
    const first = await Namespacer.open({ mode: 'on-collision', store });
    first.assign('tool', 'fs', ['search']);
    first.assign('tool', 'web', ['search']);
    await first.flush();
    const second = await Namespacer.open({ mode: 'on-collision', store });
    assert.equal(second.assign('tool', 'web', ['search']).get('search'), 'web__search', 'web connects first but fs owns the bare name');
    assert.equal(second.assign('tool', 'fs', ['search']).get('search'), 'search');
  });

  it('name takeover: a newly added server cannot take a bare name an offline server had exposed', async () => {
    const store = new MemoryNameAssignmentStore();
    const ns = await Namespacer.open({ mode: 'on-collision', store });
    ns.assign('tool', 'bank', ['transfer']);
    ns.release('bank');
    assert.equal(ns.resolve('tool', 'transfer'), undefined, 'an offline server resolves nothing');
    assert.equal(ns.assign('tool', 'newcomer', ['transfer']).get('transfer'), 'newcomer__transfer');
    ns.assign('tool', 'bank', ['transfer']);
    assert.deepEqual(ns.resolve('tool', 'transfer'), { serverId: 'bank', name: 'transfer' });
  });

  it('name squatting: a server exposing another server\'s prefixed name does not capture its calls', () => {
    const ns = new Namespacer({ mode: 'on-collision' });
    ns.assign('tool', 'fs', ['delete']);
    assert.equal(ns.assign('tool', 'evil', ['trash__delete']).get('trash__delete'), 'evil__trash_delete');
    const trash = ns.assign('tool', 'trash', ['delete']).get('delete') as string;
    assert.equal(trash, 'trash__delete', 'the prefixed name stays free for its owner');
    assert.deepEqual(ns.resolve('tool', trash), { serverId: 'trash', name: 'delete' });
    assert.deepEqual(ns.resolve('tool', 'evil__trash_delete'), { serverId: 'evil', name: 'trash__delete' });
  });

  it('forget drops reservations so the name becomes free again', async () => {
    const store = new MemoryNameAssignmentStore();
    const ns = await Namespacer.open({ mode: 'on-collision', store });
    ns.assign('tool', 'old', ['x']);
    ns.forget('old');
    assert.equal(ns.assign('tool', 'new', ['x']).get('x'), 'x');
    await ns.flush();
    assert.deepEqual((await store.load()) as unknown, { version: 1, mode: 'on-collision', separator: '__', tool: { x: ['new', 'x'] }, prompt: {} });
  });

  it('a record made with another separator is discarded (changing it is an explicit rename)', async () => {
    const store = new MemoryNameAssignmentStore({ version: 1, mode: 'on-collision', separator: '.', tool: { search: ['web', 'search'] }, prompt: {} });
    const ns = await Namespacer.open({ mode: 'on-collision', store });
    assert.equal(ns.assign('tool', 'fs', ['search']).get('search'), 'search');
  });

  it('a tool list update drops names the server no longer lists', () => {
    const ns = new Namespacer({ mode: 'on-collision' });
    ns.assign('tool', 'fs', ['a', 'b']);
    ns.assign('tool', 'fs', ['b']);
    assert.equal(ns.resolve('tool', 'a'), undefined);
    assert.equal(ns.exposedNameOf('tool', 'fs', 'b'), 'b');
  });

  it('saves only when an assignment changed', async () => {
    const store = new MemoryNameAssignmentStore();
    const ns = await Namespacer.open({ mode: 'on-collision', store });
    ns.assign('tool', 'fs', ['a']);
    ns.assign('tool', 'fs', ['a']);
    await ns.flush();
    assert.equal(store.saves, 1);
  });

  it('a failing store surfaces through flush and onSaveError, never as an unhandled rejection', async () => {
    const failure = new Error('disk full');
    const seen: unknown[] = [];
    const store: NameAssignmentStore = { load: () => Promise.resolve(undefined), save: () => Promise.reject(failure) };
    const ns = await Namespacer.open({ mode: 'on-collision', store, onSaveError: (e) => seen.push(e) });
    ns.assign('tool', 'fs', ['a']);
    await assert.rejects(ns.flush(), (e) => e === failure);
    assert.deepEqual(seen, [failure]);
    await ns.flush();
  });

  it('a corrupt saved record is a typed error', async () => {
    for (const bad of [[], { version: 2 }, { version: 1, mode: 'on-collision', separator: '__', tool: { x: 'fs' }, prompt: {} }]) {
      await assert.rejects(Namespacer.open({ mode: 'on-collision', store: new MemoryNameAssignmentStore(bad) }), (e) => isMcpError(e, 'ERR_MCP_STORE_CORRUPT'));
    }
  });
});

describe('host/namespacing: impersonation', () => {
  for (const mode of ['always', 'on-collision', 'never'] as const) {
    it(`namespace impersonation (${mode}): evil's real__create_issue is exposed as evil's, never as real's namespaced name`, () => {
      const ns = new Namespacer({ mode, serverIds: () => ['real', 'evil'] });
      const exposed = ns.assign('tool', 'evil', ['real__create_issue']).get('real__create_issue') as string;
      assert.equal(exposed, 'evil__real_create_issue');
      assert.equal(ns.resolve('tool', 'real__create_issue'), undefined, 'the namespaced form is nobody\'s until real claims it');
      const real = ns.assign('tool', 'real', ['create_issue']).get('create_issue') as string;
      assert.equal(ns.resolve('tool', real)?.serverId, 'real');
    });
  }

  it('namespace impersonation with a one-character separator: a name starting with another server\'s prefix (case, -/_ folded) is prefixed with its own server', () => {
    const ns = new Namespacer({ mode: 'on-collision', separator: '_', serverIds: () => ['real', 'evil'] });
    const map = ns.assign('tool', 'evil', ['REAL_create_issue', 'real-delete', 'create_issue']);
    assert.equal(map.get('REAL_create_issue'), 'evil_REAL_create_issue');
    assert.equal(map.get('real-delete'), 'evil_real-delete');
    assert.equal(map.get('create_issue'), 'create_issue', 'an ordinary name holding the one-character separator stays bare');
  });

  it('namespace impersonation through cleaning: a name whose invalid characters become the separator is renamed too', () => {
    const ns = new Namespacer({ mode: 'on-collision', serverIds: () => ['real', 'evil'] });
    const exposed = ns.assign('tool', 'evil', ['real _create_issue']).get('real _create_issue') as string;
    assert.ok(exposed.startsWith('evil__') && !exposed.slice('evil__'.length).includes('__'), exposed);
  });

  it('a saved bare assignment of an impersonating name (made before the rule) is not reused', async () => {
    const store = new MemoryNameAssignmentStore();
    await store.save({ version: 1, mode: 'on-collision', separator: '__', tool: { real__create_issue: ['evil', 'real__create_issue'] }, prompt: {} });
    const ns = await Namespacer.open({ mode: 'on-collision', store, serverIds: () => ['real', 'evil'] });
    assert.equal(ns.assign('tool', 'evil', ['real__create_issue']).get('real__create_issue'), 'evil__real_create_issue');
    await ns.flush();
    assert.deepEqual((await store.load()) as unknown, { version: 1, mode: 'on-collision', separator: '__', tool: { evil__real_create_issue: ['evil', 'real__create_issue'] }, prompt: {} });
  });

  it('two impersonating names that collapse alike stay apart and each resolves to its original', () => {
    const ns = new Namespacer({ mode: 'always' });
    const map = ns.assign('prompt', 'evil', ['a__b', 'a___b']);
    assert.notEqual(map.get('a__b'), map.get('a___b'));
    for (const [name, exposed] of map) {
      assert.ok(exposed.startsWith('evil__') && !exposed.slice(6).includes('__'), exposed);
      assert.deepEqual(ns.resolve('prompt', exposed), { serverId: 'evil', name });
    }
  });
});

describe('host/namespacing: never', () => {
  it('keeps names bare and refuses an ambiguous one, naming both servers', () => {
    const ns = new Namespacer({ mode: 'never' });
    ns.assign('tool', 'fs', ['search', 'read']);
    assert.throws(
      () => ns.assign('tool', 'web', ['fetch', 'search']),
      (e) => e instanceof NamespaceCollisionError && isMcpError(e, 'ERR_MCP_NAME_COLLISION') && /"fs"/.test(e.message) && /"web"/.test(e.message) && e.holder === 'fs' && e.claimant === 'web',
    );
    assert.equal(ns.resolve('tool', 'fetch'), undefined, 'a refused assign changes nothing');
    assert.deepEqual(ns.resolve('tool', 'search'), { serverId: 'fs', name: 'search' });
  });

  it('a server may be reassigned its own names', () => {
    const ns = new Namespacer({ mode: 'never' });
    ns.assign('prompt', 'fs', ['p']);
    assert.equal(ns.assign('prompt', 'fs', ['p']).get('p'), 'p');
  });
});
