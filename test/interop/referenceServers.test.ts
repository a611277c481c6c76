// Interop: @modelcontextprotocol/server-filesystem (rooted in a temp folder) and
// @modelcontextprotocol/server-memory, over stdio.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { McpClient } from '../../src/client/mcpClient.js';
import { packageBin, stdioClient } from './support.js';

const text = (result: { content: readonly { type: string; text?: string }[] }): string =>
  result.content.map((c) => (c.type === 'text' ? (c.text ?? '') : '')).join('\n');

describe('interop: server-filesystem (stdio)', () => {
  let dir: string;
  let client: McpClient;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'switchboard-fs-'));
    await writeFile(join(dir, 'hello.txt'), 'hello from interop\n');
    // No roots handler: the server must use its command-line directory.
    client = await stdioClient(packageBin('@modelcontextprotocol/server-filesystem'), [dir], { handlers: {} });
  });
  after(async () => {
    await client.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('negotiates and lists its tools', async () => {
    assert.equal(client.era, 'stateful');
    const names = (await client.listTools()).map((t) => t.name);
    for (const expected of ['read_text_file', 'write_file', 'list_directory', 'create_directory', 'search_files', 'get_file_info', 'list_allowed_directories']) {
      assert.ok(names.includes(expected), expected);
    }
  });

  it('reads, writes, lists, edits, moves and searches inside the root', async () => {
    assert.match(text(await client.callTool('list_allowed_directories', {})), new RegExp(dir.split('/').pop() ?? ''));
    assert.equal(text(await client.callTool('read_text_file', { path: join(dir, 'hello.txt') })).trim(), 'hello from interop');
    assert.notEqual((await client.callTool('write_file', { path: join(dir, 'new.txt'), content: 'one\ntwo\n' })).isError, true);
    assert.notEqual((await client.callTool('edit_file', { path: join(dir, 'new.txt'), edits: [{ oldText: 'two', newText: 'three' }] })).isError, true);
    assert.match(text(await client.callTool('read_text_file', { path: join(dir, 'new.txt') })), /three/);
    assert.notEqual((await client.callTool('create_directory', { path: join(dir, 'sub') })).isError, true);
    assert.notEqual((await client.callTool('move_file', { source: join(dir, 'new.txt'), destination: join(dir, 'sub', 'moved.txt') })).isError, true);
    assert.match(text(await client.callTool('list_directory', { path: dir })), /\[DIR\] sub/);
    assert.match(text(await client.callTool('search_files', { path: dir, pattern: '**/moved*' })), /moved\.txt/);
    assert.match(text(await client.callTool('get_file_info', { path: join(dir, 'hello.txt') })), /size/);
    const multi = await client.callTool('read_multiple_files', { paths: [join(dir, 'hello.txt'), join(dir, 'sub', 'moved.txt')] });
    assert.match(text(multi), /hello from interop/);
    assert.match(text(await client.callTool('directory_tree', { path: dir })), /moved\.txt/);
  });

  it('reports access outside the root as a tool error', async () => {
    const outside = await client.callTool('read_text_file', { path: '/etc/hostname' });
    assert.equal(outside.isError, true);
  });
});

describe('interop: server-memory (stdio)', () => {
  let dir: string;
  let client: McpClient;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'switchboard-memory-'));
    client = await stdioClient(packageBin('@modelcontextprotocol/server-memory'), [], {}, dir, { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') });
  });
  after(async () => {
    await client.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('builds and queries a knowledge graph', async () => {
    assert.equal(client.era, 'stateful');
    const names = (await client.listTools()).map((t) => t.name);
    assert.ok(names.includes('create_entities') && names.includes('read_graph'));
    await client.callTool('create_entities', { entities: [{ name: 'Switchboard', entityType: 'project', observations: ['speaks MCP'] }, { name: 'Ada', entityType: 'person', observations: [] }] });
    await client.callTool('create_relations', { relations: [{ from: 'Ada', to: 'Switchboard', relationType: 'maintains' }] });
    await client.callTool('add_observations', { observations: [{ entityName: 'Ada', contents: ['writes tests'] }] });
    const graph = await client.callTool('read_graph', {});
    assert.match(JSON.stringify(graph), /maintains/);
    assert.match(JSON.stringify(await client.callTool('search_nodes', { query: 'Ada' })), /writes tests/);
    assert.match(JSON.stringify(await client.callTool('open_nodes', { names: ['Switchboard'] })), /speaks MCP/);
    await client.callTool('delete_observations', { deletions: [{ entityName: 'Ada', observations: ['writes tests'] }] });
    await client.callTool('delete_relations', { relations: [{ from: 'Ada', to: 'Switchboard', relationType: 'maintains' }] });
    await client.callTool('delete_entities', { entityNames: ['Ada', 'Switchboard'] });
    assert.doesNotMatch(JSON.stringify(await client.callTool('read_graph', {})), /Switchboard/);
  });
});
