import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileGlob, compileToolFilter } from '../../../src/host/toolFilter.js';

describe('host/toolFilter', () => {
  it('* matches any run (also empty), ? exactly one character, over the whole name', () => {
    const read = compileGlob('read_*');
    assert.ok(read('read_file') && read('read_'));
    assert.ok(!read('xread_file') && !read('rea_file'));
    const one = compileGlob('get_?');
    assert.ok(one('get_a') && !one('get_') && !one('get_ab'));
  });

  it('matching is case-sensitive, as tool names are', () => {
    assert.ok(!compileGlob('read_*')('READ_file'));
  });

  it('regex metacharacters in a pattern are literal', () => {
    const dotted = compileGlob('a.b');
    assert.ok(dotted('a.b') && !dotted('aXb'));
    assert.ok(compileGlob('x(1)+[y]')('x(1)+[y]'));
  });

  it('no allow list allows all; deny wins over allow', () => {
    const all = compileToolFilter({ allow: undefined, deny: ['write_file'] });
    assert.ok(all('read_file') && !all('write_file'));
    const some = compileToolFilter({ allow: ['read_*', 'list_directory'], deny: ['read_secret*'] });
    assert.ok(some('read_file') && some('list_directory'));
    assert.ok(!some('write_file') && !some('read_secrets'));
  });

  it('filter bypass: a denied name does not slip through by case or a suffix', () => {
    const filter = compileToolFilter({ allow: undefined, deny: ['delete_*'] });
    assert.ok(!filter('delete_repo'));
    const exact = compileToolFilter({ allow: ['read_file'], deny: [] });
    assert.ok(!exact('read_file_and_delete'), 'an allow pattern matches the whole name, not a prefix');
    assert.ok(!exact('read_file\n'), 'a trailing newline is not ignored');
  });
});
