import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolSearchIndex, parameterNames, tokenize } from '../../../src/host/toolSearch.js';
import type { Tool } from '../../../src/protocol/model/tool.js';
import { tools } from '../../fixtures/host/toolFixtures.js';

const index = new ToolSearchIndex(tools);
const names = (query: string, limit = 5) => index.search(query, { limit }).map((r) => r.name);
const rank = (query: string, name: string) => names(query, tools.length).indexOf(name);

describe('host/toolSearch: tokenize', () => {
  it('splits camelCase, acronyms, snake, kebab, dots and slashes; lowercases; folds plurals; drops stop words', () => {
    assert.deepEqual(tokenize('readFile'), ['read', 'file']);
    assert.deepEqual(tokenize('HTTPServer_v2'), ['http', 'server', 'v', '2']);
    assert.deepEqual(tokenize('github__create_pull-request'), ['github', 'create', 'pull', 'request']);
    assert.deepEqual(tokenize('browser.takeScreenshot'), ['browser', 'take', 'screenshot']);
    assert.deepEqual(tokenize('user-profile/update'), ['user', 'profile', 'update']);
    assert.deepEqual(tokenize('List the files of a directories'), ['list', 'file', 'directory']);
    assert.deepEqual(tokenize('classes status address'), ['class', 'status', 'address']);
  });

  it('parameterNames reads properties and one nested level (objects and arrays of objects)', () => {
    const schema = { type: 'object', properties: { a: { type: 'object', properties: { b: {}, c: { type: 'object', properties: { deep: {} } } } }, list: { type: 'array', items: { properties: { item: {} } } } } };
    assert.deepEqual(parameterNames(schema), ['a', 'b', 'c', 'list', 'item']);
    assert.deepEqual(parameterNames({ type: 'object' }), []);
  });
});

describe('host/toolSearch: ranking', () => {
  it('"read file" ranks read_file first, above write_file', () => {
    assert.equal(names('read file')[0], 'read_file');
    assert.ok(rank('read file', 'read_file') < rank('read file', 'write_file'));
  });

  it('finds tools by words of their description, title and parameters', () => {
    assert.equal(names('open pull request')[0], 'github__create_pull_request');
    assert.equal(names('what is the current time in Tokyo')[0], 'get_current_time');
    assert.equal(names('post a message to a slack channel')[0], 'slack_post_message');
    assert.equal(names('knowledge graph nodes query')[0], 'memory__search_nodes');
    assert.equal(names('download a web page url as markdown')[0], 'fetch');
    assert.equal(names('screenshot of the page')[0], 'browser.takeScreenshot');
    assert.equal(names('rename a file')[0], 'move_file');
  });

  it('parameter names count: "timezone" finds both time tools before anything else', () => {
    assert.deepEqual(new Set(names('timezone', 2)), new Set(['get_current_time', 'convert_time']));
  });

  it('a rare term outweighs a common one (IDF): "repository branch" prefers create_branch', () => {
    assert.equal(names('repository branch')[0], 'github__create_branch');
  });

  it('returns full definitions with positive scores, best first, at most limit', () => {
    const results = index.search('create', { limit: 3 });
    assert.equal(results.length, 3);
    for (const r of results) {
      assert.ok(r.score > 0);
      assert.equal(r.tool, tools.find((t) => t.name === r.name)?.tool);
    }
    assert.ok(results[0]!.score >= results[1]!.score && results[1]!.score >= results[2]!.score);
    assert.equal(index.search('create').length, 5, 'default limit 5');
  });

  it('no match, an empty query or only stop words gives no results', () => {
    assert.deepEqual(index.search('zebra quantum'), []);
    assert.deepEqual(index.search(''), []);
    assert.deepEqual(index.search('the of and'), []);
    assert.deepEqual(new ToolSearchIndex([]).search('anything'), []);
  });

  it('ties are broken by name, then input order, whatever the input order', () => {
    const same: Tool = { name: 'x', description: 'Send an email', inputSchema: { type: 'object' } };
    const list = [
      { name: 'b_mail', tool: same },
      { name: 'a_mail', tool: same },
      { name: 'c_mail', tool: same },
    ];
    const forward = new ToolSearchIndex(list).search('send email').map((r) => r.name);
    const backward = new ToolSearchIndex([...list].reverse()).search('send email').map((r) => r.name);
    assert.deepEqual(forward, ['a_mail', 'b_mail', 'c_mail']);
    assert.deepEqual(backward, forward);
  });
});
