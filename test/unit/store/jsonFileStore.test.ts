import assert from 'node:assert/strict';
import * as fs from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { checkLaunch } from '../../../src/host/launchConsent.js';
import { Namespacer } from '../../../src/host/namespacing.js';
import { JsonFile, type FileOps } from '../../../src/store/jsonFile.js';
import { JsonFileLaunchApprovalStore, openStateStores } from '../../../src/store/jsonFileStore.js';
import { isMcpError } from '../../../src/util/errors.js';

const root = await fs.mkdtemp(join(tmpdir(), 'sb-store-'));
after(() => fs.rm(root, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(root, `case${++n}`, '.switchboard');
const digest = `sha256:${'ab'.repeat(32)}`;
const mode = async (path: string) => (await fs.stat(path)).mode & 0o777;

/** node:fs/promises, except that writes through an opened handle fail with `code`. */
function failingWrites(code: string): FileOps {
  return {
    ...fs,
    open: async (path, flags, fileMode) => {
      const handle = await fs.open(path, flags, fileMode);
      return {
        writeFile: () => Promise.reject(Object.assign(new Error(`${code}: simulated`), { code })),
        sync: () => handle.sync(),
        close: () => handle.close(),
      };
    },
  };
}

describe('store/jsonFile', () => {
  it('a missing file reads as undefined; a write creates the folder 0700 and the file 0600', async () => {
    const dir = fresh();
    const file = new JsonFile(join(dir, 'x.json'));
    assert.equal(await file.read(), undefined);
    await file.write({ a: 1 });
    assert.deepEqual(await file.read(), { a: 1 });
    assert.equal(await mode(dir), 0o700);
    assert.equal(await mode(join(dir, 'x.json')), 0o600);
  });

  it('leaves no temporary file behind', async () => {
    const dir = fresh();
    const file = new JsonFile(join(dir, 'x.json'));
    await Promise.all([file.write({ v: 1 }), file.write({ v: 2 }), file.write({ v: 3 })]);
    assert.deepEqual(await fs.readdir(dir), ['x.json']);
    assert.deepEqual(await file.read(), { v: 3 }, 'writes land in call order');
  });

  it('a corrupt file is a typed error, not a crash', async () => {
    const dir = fresh();
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(join(dir, 'x.json'), '{"a": tru');
    await assert.rejects(new JsonFile(join(dir, 'x.json')).read(), (e) => isMcpError(e, 'ERR_MCP_STORE_CORRUPT') && /not valid JSON/.test((e as Error).message));
  });

  it('a full disk (ENOSPC) is a typed error, and the old file is intact with no temporary left', async () => {
    const dir = fresh();
    await new JsonFile(join(dir, 'x.json')).write({ old: true });
    const full = new JsonFile(join(dir, 'x.json'), { fs: failingWrites('ENOSPC') });
    await assert.rejects(full.write({ new: true }), (e) => isMcpError(e, 'ERR_MCP_STORE_WRITE_FAILED') && /disk full/.test((e as Error).message));
    assert.deepEqual(await new JsonFile(join(dir, 'x.json')).read(), { old: true });
    assert.deepEqual(await fs.readdir(dir), ['x.json']);
  });

  it('a failed write does not block later writes', async () => {
    const dir = fresh();
    let fail = true;
    const ops: FileOps = { ...fs, rename: (a, b) => (fail ? Promise.reject(Object.assign(new Error('EIO'), { code: 'EIO' })) : fs.rename(a, b)) };
    const file = new JsonFile(join(dir, 'x.json'), { fs: ops });
    await assert.rejects(file.write(1), (e) => isMcpError(e, 'ERR_MCP_STORE_WRITE_FAILED'));
    fail = false;
    await file.write(2);
    assert.equal(await file.read(), 2);
  });
});

describe('store/jsonFileStore', () => {
  it('launch approvals persist across store instances, one key at a time', async () => {
    const dir = fresh();
    const { launches } = openStateStores(dir);
    await launches.set('fs', digest);
    await launches.set('git', digest.replace('ab', 'cd'));
    const reopened = openStateStores(dir).launches;
    assert.equal(await reopened.get('fs'), digest);
    assert.equal(await reopened.get('git'), digest.replace('ab', 'cd'));
    assert.equal(await reopened.get('none'), undefined);
    assert.equal(await reopened.get('__proto__'), undefined);
    assert.deepEqual(JSON.parse(await fs.readFile(join(dir, 'launches.json'), 'utf8')), { version: 1, approved: { fs: digest, git: digest.replace('ab', 'cd') } });
  });

  it('forged approval: a hand-edited approval file with a non-digest value is refused as corrupt', async () => {
    const dir = fresh();
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(join(dir, 'launches.json'), JSON.stringify({ version: 1, approved: { fs: true } }));
    await assert.rejects(new JsonFileLaunchApprovalStore(join(dir, 'launches.json')).get('fs'), (e) => isMcpError(e, 'ERR_MCP_STORE_CORRUPT'));
  });

  it('approving a launch with --yes records it, and the next run finds it', async () => {
    const dir = fresh();
    const spec = { command: 'node', args: ['server.js'], cwd: null, env: [] };
    const digest = `hmac-sha256:${'c'.repeat(64)}`;
    assert.equal(await checkLaunch({ serverId: 'local', spec, digest, store: openStateStores(dir).launches, yes: true }), 'approved-now');
    assert.equal(await checkLaunch({ serverId: 'local', spec, digest, store: openStateStores(dir).launches, yes: false }), 'approved');
    assert.equal(await openStateStores(dir).launches.get('local'), digest);
  });

  it('name assignments survive a restart through names.json', async () => {
    const dir = fresh();
    const first = await Namespacer.open({ mode: 'on-collision', store: openStateStores(dir).names });
    first.assign('tool', 'fs', ['search']);
    first.assign('tool', 'web', ['search']);
    await first.flush();
    assert.equal(await mode(join(dir, 'names.json')), 0o600);
    const second = await Namespacer.open({ mode: 'on-collision', store: openStateStores(dir).names });
    assert.equal(second.assign('tool', 'web', ['search']).get('search'), 'web__search');
  });

  it('a corrupt names.json is a typed error when the namespacer opens', async () => {
    const dir = fresh();
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(join(dir, 'names.json'), '[');
    await assert.rejects(Namespacer.open({ mode: 'on-collision', store: openStateStores(dir).names }), (e) => isMcpError(e, 'ERR_MCP_STORE_CORRUPT'));
  });
});
