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

  it('config rewrite: a dangling link into the state folder is a protected path to the check', T, () => {
    const set = protectedPathSet([{ path: state, what: 'state folder' }], nodePathPlatform(state));
    const verdict = findProtectedPath(set, { path: 'dangling', content: '{}' }, { bases: [join(dir, 'project')], ancestors: true });
    assert.equal(verdict.kind, 'protected');
    const plain = findProtectedPath(set, { path: 'file.txt', content: 'hello' }, { bases: [join(dir, 'project')], ancestors: true });
    assert.equal(plain.kind, 'clear');
  });
});
