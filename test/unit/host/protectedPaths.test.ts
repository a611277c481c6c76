// The protected-path check (issue #31): the gateway's own files named in any spelling an
// attacker may pick are found; ordinary paths are not. Pure: the platform (case, home, symlinks)
// is given, so each spelling is tested on POSIX, case-insensitive and Windows rules alike.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkPath, fileUriToPath, findProtectedPath, pathCandidates, protectedPathSet, type PathPlatform, type ProtectedPath } from '../../../src/host/protectedPaths.js';
import { globReach } from '../../../src/host/pathGlob.js';

const T = { timeout: 5_000 };
const POSIX: PathPlatform = { caseInsensitive: false, home: '/home/u' };
const PROTECTED: ProtectedPath[] = [
  { path: '/proj/.switchboard', what: 'state folder' },
  { path: '/proj/switchboard.json', what: 'config file' },
];
const set = protectedPathSet(PROTECTED, POSIX);
const at = { bases: ['/proj'], ancestors: false };
const writing = { bases: ['/proj'], ancestors: true };
const named = (text: string, options = at, paths = set): boolean => checkPath(paths, text, options).protected;

describe('protectedPaths: spellings of a protected path', () => {
  const spellings = [
    '/proj/.switchboard/admin-token',
    '/proj/./.switchboard//admin-token',
    '/proj/sub/../.switchboard/admin-token',
    '/proj/sub/../../proj/.switchboard',
    '.switchboard/admin-token',
    './.switchboard/pins.db',
    'sub/../.switchboard/audit.db',
    'switchboard.json',
    'file:///proj/.switchboard/admin-token',
    'FILE:///proj/.switchboard/admin-token',
    'file://localhost/proj/.switchboard/admin-token',
    'file:///proj/%2e%2e/proj/.switchboard/admin-token',
    'file:///proj/%2E%2E/proj/%2eswitchboard/../.switchboard',
    'file:///proj%2f.switchboard%2fadmin-token',
    'file:///proj/.switchboard/admin-token?x=1#y',
    '/proj/%2e%2e/proj/.switchboard/admin-token',
    '  /proj/.switchboard/admin-token  ',
    '"/proj/.switchboard/admin-token"',
    "'/proj/switchboard.json'",
    '/proj/.switchboard/admin-token\0.txt',
    '/proj/.switchboard/*',
    '/proj/.switch*/admin-token',
    '/proj/{.switchboard,x}/audit.db',
    '/proj/.switchboar[d]',
    'cat /proj/.switchboard/admin-token',
    'cp .switchboard/pins.db /tmp/x',
    '--config=/proj/switchboard.json',
    'line one\nthen /proj/.switchboard/admin-token',
  ];
  for (const text of spellings) {
    it(`path spelling: ${JSON.stringify(text)} names a protected path`, T, () => {
      assert.equal(named(text), true);
    });
  }

  it('home folder: ~/… names a protected path under the home folder', T, () => {
    const home = protectedPathSet([{ path: '/home/u/.config/switchboard', what: 'per-user folder' }], POSIX);
    assert.equal(named('~/.config/switchboard/state/admin-token', at, home), true);
    assert.equal(named('~', writing, home), true, '~ is an ancestor: refused to a tool that may change files');
    assert.equal(named('~other/.config/switchboard', at, home), false, '~user is not expanded (not this user)');
  });

  it('glob: a pattern that could match a file known in the state folder is refused; one that merely could reach it is not', T, () => {
    const listed = protectedPathSet(PROTECTED, { ...POSIX, list: (p) => (p === '/proj/.switchboard' ? ['admin-token', 'pins.db', 'oauth'] : undefined) });
    for (const text of ['**/pins.db', '/proj/**/admin-tok?n', '**/*.db', '/**/oauth']) assert.equal(named(text, at, listed), true, text);
    for (const text of ['**/*.ts', '/proj/**/README.md']) assert.equal(named(text, at, listed), false, text);
  });

  it('every base: a relative path is resolved against each folder the server may use', T, () => {
    assert.equal(named('../.switchboard/admin-token', { bases: ['/elsewhere', '/proj/src'], ancestors: false }), true);
    assert.equal(named('.switchboard/admin-token', { bases: ['/elsewhere'], ancestors: false }), false);
  });

  it('case: on a case-insensitive file system /PROJ/.SwitchBoard is the state folder; on POSIX it is not', T, () => {
    const insensitive = protectedPathSet(PROTECTED, { caseInsensitive: true });
    assert.equal(named('/PROJ/.SwitchBoard/Admin-Token', at, insensitive), true);
    assert.equal(named('FILE:///Proj/SWITCHBOARD.JSON', at, insensitive), true);
    assert.equal(named('/PROJ/.SwitchBoard/Admin-Token'), false);
  });

  it('unicode: a name in another normal form (NFD) is the same name', T, () => {
    const accented = protectedPathSet([{ path: '/proj/é', what: 'state folder' }], POSIX);
    assert.equal(named('/proj/e\u0301/pins.db', at, accented), true);
  });

  it('windows: drive case, backslashes, \\\\?\\ prefixes, trailing dots and ::$DATA streams', T, () => {
    const windows: PathPlatform = { caseInsensitive: true, windows: true, home: 'C:\\Users\\u' };
    const win = protectedPathSet([{ path: 'C:\\proj\\.switchboard', what: 'state folder' }], windows);
    const options = { bases: ['C:\\proj'], ancestors: true };
    for (const text of ['c:\\PROJ\\.switchboard\\admin-token', 'C:/proj/.switchboard/admin-token', '\\\\?\\C:\\proj\\.switchboard\\pins.db', 'C:\\proj\\.switchboard.\\pins.db', 'C:\\proj\\.switchboard\\admin-token::$DATA', 'file:///C:/proj/.switchboard/admin-token', '.switchboard\\audit.db', 'C:\\proj']) {
      assert.equal(named(text, options, win), true, text);
    }
    assert.equal(named('C:\\proj\\src\\a.ts', options, win), false);
  });

  it('symlink: a link made first is followed at check time (realpath of the longest existing prefix)', T, () => {
    const links: PathPlatform = { caseInsensitive: false, realpath: (p) => (p.startsWith('/proj/link') ? p.replace('/proj/link', '/proj/.switchboard') : p) };
    const linked = protectedPathSet(PROTECTED, links);
    assert.equal(named('/proj/link/admin-token', at, linked), true);
    assert.equal(named('link/admin-token', at, linked), true);
    assert.equal(named('/proj/link/admin-token'), false, 'without the platform realpath the link is not seen');
  });

  it('symlinked state folder: a protected path is also known by its real path', T, () => {
    const real: PathPlatform = { caseInsensitive: false, realpath: (p) => p.replace(/^\/tmp\//, '/private/tmp/') };
    const paths = protectedPathSet([{ path: '/tmp/s', what: 'state folder' }], real);
    assert.equal(named('/private/tmp/s/pins.db', { bases: [], ancestors: false }, paths), true);
  });
});

describe('protectedPaths: ancestors', () => {
  it('state reset: moving or deleting a folder that holds the state folder is refused to a tool that may change files', T, () => {
    for (const text of ['/proj', '/proj/', '/', '.', '/proj/sub/..', 'file:///proj']) assert.equal(named(text, writing), true, text);
  });

  it('listing: a read-only request may name an ancestor (it shows names, not contents)', T, () => {
    for (const text of ['/proj', '.', '/']) assert.equal(named(text), false, text);
  });

  it('another scheme: the path of an https URL is never read as an ancestor', T, () => {
    assert.equal(named('https://example.com/', writing), false);
    assert.equal(named('https://example.com/proj/.switchboard/admin-token', writing), true);
  });

  it('words in a text are never ancestors: a write whose content mentions /proj is allowed', T, () => {
    assert.equal(named('see /proj and / for more', writing), false);
  });
});

describe('protectedPaths: ordinary requests pass', () => {
  const ordinary = ['/proj/src/index.ts', 'src/index.ts', 'notes.txt', '/proj/.switchboard-notes/x', '/proj/switchboard.json.bak', '/proj/.switchboardx', 'hello world', '', '   ', 'https://example.com/x', 'file:///proj/src', '/other/.switchboard/admin-token', '**/*.ts', '/proj/src/**', 'a'.repeat(5000)];
  for (const text of ordinary) {
    it(`ordinary: ${JSON.stringify(text.slice(0, 40))} is not a protected path`, T, () => {
      assert.equal(named(text, writing), false);
    });
  }
});

describe('protectedPaths: arguments at any depth', () => {
  it('read_multiple_files: one protected path in an array of paths is found, with where it was', T, () => {
    const found = findProtectedPath(set, { paths: ['/proj/a', '/proj/.switchboard/admin-token'] }, at);
    assert.equal(found.kind, 'protected');
    assert.equal(found.kind === 'protected' ? found.at : '', '$.paths[1]');
  });

  it('edit_file: a protected path deep in nested objects, or as a key, is found', T, () => {
    assert.equal(findProtectedPath(set, { a: { b: [{ c: 'x' }, { d: { path: 'switchboard.json' } }] } }, at).kind, 'protected');
    assert.equal(findProtectedPath(set, { '/proj/.switchboard/pins.db': true }, at).kind, 'protected');
  });

  it('keys: a key is read as a path only when it looks like one (a base that is the state folder does not make every key protected)', T, () => {
    const inState = { bases: ['/proj/.switchboard'], ancestors: false };
    assert.equal(findProtectedPath(set, { arguments: { path: '/proj/src/a.ts' } }, inState).kind, 'clear');
    assert.equal(findProtectedPath(set, { 'pins.db': 1 }, inState).kind, 'protected');
  });

  it('depth bomb: arguments nested past the limit are refused, never passed unread', T, () => {
    let deep: unknown = '/proj/.switchboard/admin-token';
    for (let i = 0; i < 100; i++) deep = [deep];
    assert.equal(findProtectedPath(set, deep, at).kind, 'unreadable');
  });

  it('count bomb: more strings than the limit are refused', T, () => {
    assert.equal(findProtectedPath(set, Array.from({ length: 10_001 }, () => 'x'), at).kind, 'unreadable');
  });

  it('clear: ordinary arguments pass', T, () => {
    assert.deepEqual(findProtectedPath(set, { path: '/proj/src/a.ts', content: 'hello', n: 3, ok: true, none: null }, writing), { kind: 'clear' });
  });

  it('the top-level key left out (a tool\'s name) is only the top level: an argument called name is still read', T, () => {
    assert.equal(findProtectedPath(set, { name: '/proj/.switchboard', arguments: {} }, at, 'name').kind, 'clear');
    assert.equal(findProtectedPath(set, { name: 'echo', arguments: { name: '/proj/.switchboard' } }, at, 'name').kind, 'protected');
    assert.equal(findProtectedPath(set, { name: 'echo', arguments: { 'switchboard.json': 1 } }, at, 'name').kind, 'protected');
    assert.equal(findProtectedPath(set, { name: '/proj/.switchboard' }, at).kind, 'protected', 'without it, every key is read');
  });
});

describe('protectedPaths: the normaliser', () => {
  it('pathCandidates: a relative path is read against every base, each folded once', T, () => {
    const paths = pathCandidates('a/../b', ['/x', '/y', '/x'], POSIX, false).map((c) => c.display);
    assert.deepEqual(paths, ['/x/b', '/y/b']);
  });

  it('fileUriToPath: decodes, drops the query and reads a drive letter', T, () => {
    assert.equal(fileUriToPath('file:///a%20b/c?q'), '/a b/c');
    assert.equal(fileUriToPath('file:///C:/x'), 'C:/x');
    assert.equal(fileUriToPath('https://e.com/x'), undefined);
  });

  it('globReach: what a glob can reach relative to a path', T, () => {
    assert.deepEqual(globReach(['proj', '*'], ['proj', '.switchboard']), { same: true, inside: false, aimed: false, ancestor: false });
    assert.deepEqual(globReach(['proj', '**'], ['proj', '.switchboard']), { same: true, inside: true, aimed: false, ancestor: true });
    assert.deepEqual(globReach(['proj', '.sw*', '*'], ['proj', '.switchboard']), { same: false, inside: true, aimed: true, ancestor: false });
    assert.deepEqual(globReach(['proj'], ['proj', '.switchboard']), { same: false, inside: false, aimed: false, ancestor: true });
    assert.deepEqual(globReach(['x', '**', 'y'], ['x', 'a']), { same: false, inside: true, aimed: false, ancestor: false });
    assert.deepEqual(globReach(['src', '*.ts'], ['proj', '.switchboard']), { same: false, inside: false, aimed: false, ancestor: false });
  });

  it('globReach: many ** stay fast', T, () => {
    const pattern = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? '**' : 'a*'));
    const start = performance.now();
    globReach(pattern, Array.from({ length: 60 }, () => 'b'));
    assert.ok(performance.now() - start < 500);
  });
});
