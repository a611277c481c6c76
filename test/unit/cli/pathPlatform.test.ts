// The real path the protected-path check reads a request's string as (`cli/pathPlatform.ts`):
// resolved from the root down with lstat, one lookup per name per request, dangling links
// followed. Judged against the file system itself (`fs.realpathSync`) on real links.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { realpathOfPrefix, scopedRealpath } from '../../../src/cli/pathPlatform.js';
import { findProtectedPath, protectedPathSet } from '../../../src/host/protectedPaths.js';
import { nodePathPlatform } from '../../../src/cli/pathPlatform.js';

const T = { timeout: 10_000 };

describe('pathPlatform: the real path of a request\'s string', () => {
  let dir: string;
  let state: string;
  before(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'sb-realpath-')));
    state = join(dir, '.switchboard');
    await mkdir(join(state, 'sub'), { recursive: true });
    await writeFile(join(state, 'admin-token'), 'secret');
    await mkdir(join(dir, 'project'));
    await writeFile(join(dir, 'project', 'file.txt'), 'x');
    await symlink(state, join(dir, 'project', 'innocent'));
    await symlink('../.switchboard/admin-token', join(dir, 'project', 'relative-link'));
    await symlink(join(state, 'planted.json'), join(dir, 'project', 'dangling'));
    await symlink('innocent/sub/../nowhere', join(dir, 'project', 'dangling-through-link'));
    await symlink('loop-b', join(dir, 'project', 'loop-a'));
    await symlink('loop-a', join(dir, 'project', 'loop-b'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('existing paths: the same answer as fs.realpathSync, links in any component followed', T, () => {
    for (const p of [dir, join(dir, 'project', 'file.txt'), join(dir, 'project', 'innocent', 'admin-token'), join(dir, 'project', 'relative-link'), join(dir, 'project', 'innocent', 'sub')]) {
      assert.equal(realpathOfPrefix(p), realpathSync.native(p), p);
    }
  });

  it('a missing tail is appended to the real path of the longest existing prefix', T, () => {
    assert.equal(realpathOfPrefix(join(dir, 'project', 'innocent', 'new', 'deeper.txt')), join(state, 'new', 'deeper.txt'));
    assert.equal(realpathOfPrefix(join(dir, 'project', 'nothing-here')), join(dir, 'project', 'nothing-here'));
  });

  it('a name under a file is read as missing (ENOTDIR), under the file\'s real path', T, () => {
    assert.equal(realpathOfPrefix(join(dir, 'project', 'file.txt', 'x')), join(dir, 'project', 'file.txt', 'x'));
  });

  it('dangling link: followed to where a write would create the file (realpath(3) gives up here)', T, () => {
    assert.equal(realpathOfPrefix(join(dir, 'project', 'dangling')), join(state, 'planted.json'));
    assert.equal(realpathOfPrefix(join(dir, 'project', 'dangling-through-link')), join(state, 'nowhere'));
  });

  it('link loop: no answer (the server cannot open it either)', T, () => {
    assert.equal(realpathOfPrefix(join(dir, 'project', 'loop-a')), undefined);
    assert.equal(realpathOfPrefix(join(dir, 'project', 'loop-a', 'x')), undefined);
  });

  it('one scope remembers lookups; a new scope sees a link changed in between', T, async () => {
    const one = scopedRealpath();
    const path = join(dir, 'project', 'later');
    assert.equal(one(path), path);
    await symlink(state, path);
    assert.equal(one(path), path, 'a scope is one request: it keeps what it saw');
    assert.equal(scopedRealpath()(path), state, 'the next request sees the link');
  });

  it('anchors are kept across requests only while they are the same folder: one swapped for a link into the state folder is seen', T, async () => {
    const base = join(dir, 'base');
    await mkdir(base);
    const set = protectedPathSet([{ path: state, what: 'state folder' }], nodePathPlatform(state));
    const check = (): string => findProtectedPath(set, { path: 'admin-token' }, { bases: [base], ancestors: false }).kind;
    assert.equal(check(), 'clear');
    assert.equal(check(), 'clear', 'the anchor kept from the first request');
    await rm(base, { recursive: true });
    await symlink(state, base);
    assert.equal(check(), 'protected', 'the swapped anchor was read from the cache');
    assert.equal(scopedRealpath([base])(join(base, 'x')), join(state, 'x'));
  });

  it('a symlink named like a plain word in the server\'s folder pointing at the state folder is still refused (a word\'s verdict is kept for one event-loop turn only)', T, async () => {
    const folder = join(dir, 'words');
    await mkdir(folder);
    const set = protectedPathSet([{ path: state, what: 'state folder' }], nodePathPlatform(state));
    // One options object, as the interceptor gives for one server: the second check in the turn reuses the first's verdict.
    const options = { bases: [folder], ancestors: true };
    const check = (): string => findProtectedPath(set, { message: 'hello' }, options).kind;
    assert.equal(check(), 'clear');
    assert.equal(check(), 'clear');
    await new Promise((done) => setImmediate(done));
    await symlink(state, join(folder, 'hello'));
    assert.equal(check(), 'protected', 'the link made after the turn is followed');
    assert.equal(check(), 'protected');
  });

  it('the same word for a read-only call and for a call that may change files: each gets its own verdict in one turn', T, async () => {
    const folder = join(dir, 'tree');
    const inner = join(folder, 'inner', 'state');
    await mkdir(inner, { recursive: true });
    const set = protectedPathSet([{ path: inner, what: 'state folder' }], nodePathPlatform(inner));
    const bases = [folder];
    const reading = { bases, ancestors: false };
    const writing = { bases, ancestors: true };
    assert.equal(findProtectedPath(set, { path: 'inner' }, reading).kind, 'clear', 'listing an ancestor is allowed');
    assert.equal(findProtectedPath(set, { path: 'inner' }, writing).kind, 'protected', 'moving or deleting it is not');
    assert.equal(findProtectedPath(set, { path: 'inner' }, reading).kind, 'clear');
  });

  it('the same word for two servers in one turn: each server\'s folders give its own verdict (a link planted in one of them)', T, async () => {
    const plain = join(dir, 'server-a');
    const planted = join(dir, 'server-b');
    await mkdir(plain);
    await mkdir(planted);
    await symlink(state, join(planted, 'notes'));
    const set = protectedPathSet([{ path: state, what: 'state folder' }], nodePathPlatform(state));
    const a = { bases: [plain], ancestors: false };
    const b = { bases: [planted], ancestors: false };
    assert.equal(findProtectedPath(set, { file: 'notes' }, a).kind, 'clear');
    assert.equal(findProtectedPath(set, { file: 'notes' }, b).kind, 'protected');
    assert.equal(findProtectedPath(set, { file: 'notes' }, a).kind, 'clear');
    // Another set of protected paths read through the same folders in the same turn.
    const other = protectedPathSet([{ path: join(plain, 'notes'), what: 'config file' }], nodePathPlatform(state));
    assert.equal(findProtectedPath(other, { file: 'notes' }, a).kind, 'protected');
  });

  it('config rewrite: a dangling link into the state folder is a protected path to the check', T, () => {
    const set = protectedPathSet([{ path: state, what: 'state folder' }], nodePathPlatform(state));
    const verdict = findProtectedPath(set, { path: 'dangling', content: '{}' }, { bases: [join(dir, 'project')], ancestors: true });
    assert.equal(verdict.kind, 'protected');
    const plain = findProtectedPath(set, { path: 'file.txt', content: 'hello' }, { bases: [join(dir, 'project')], ancestors: true });
    assert.equal(plain.kind, 'clear');
  });
});
