import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PNG_BASE64 } from '../../../../src/demo/everything/fixtures.js';
import { STATIC_TEXT, TEMPLATE_IDS } from '../../../../src/demo/everything/resources.js';
import { rpcError, start, type Harness } from './support.js';

type Contents = { contents: { uri: string; mimeType?: string; text?: string; blob?: string }[]; ttlMs?: number; cacheScope?: string };

describe('everything: resources', () => {
  let h: Harness;
  before(async () => {
    h = await start();
  });
  after(() => h.close());

  it('lists the fixed resources and the template, with cache hints', async () => {
    const list = (await h.request('resources/list')) as { resources: { uri: string; mimeType?: string }[]; ttlMs?: number; cacheScope?: string };
    assert.deepEqual(
      list.resources.map((r) => [r.uri, r.mimeType]),
      [
        ['test://static-text', 'text/plain'],
        ['test://static-binary', 'image/png'],
        ['test://watched-resource', 'text/plain'],
      ],
    );
    assert.equal(typeof list.ttlMs, 'number');
    assert.ok(list.cacheScope === 'public' || list.cacheScope === 'private');
    const templates = (await h.request('resources/templates/list')) as { resourceTemplates: { uriTemplate: string; name: string }[] };
    assert.deepEqual(templates.resourceTemplates.map((t) => [t.uriTemplate, t.name]), [['test://template/{id}/data', 'template']]);
  });

  it('reads the static text resource', async () => {
    const read = (await h.request('resources/read', { uri: 'test://static-text' })) as Contents;
    assert.deepEqual(read.contents, [{ uri: 'test://static-text', mimeType: 'text/plain', text: STATIC_TEXT }]);
    assert.equal(read.ttlMs, 60_000);
    assert.equal(read.cacheScope, 'public');
  });

  it('reads the static binary resource as a base64 PNG blob', async () => {
    const read = (await h.request('resources/read', { uri: 'test://static-binary' })) as Contents;
    assert.deepEqual(read.contents, [{ uri: 'test://static-binary', mimeType: 'image/png', blob: PNG_BASE64 }]);
    assert.equal(Buffer.from(read.contents[0]?.blob ?? '', 'base64').subarray(1, 4).toString('latin1'), 'PNG');
  });

  it('reads the template with the id substituted', async () => {
    const read = (await h.request('resources/read', { uri: 'test://template/123/data' })) as Contents;
    assert.equal(read.contents[0]?.uri, 'test://template/123/data');
    assert.equal(read.contents[0]?.mimeType, 'application/json');
    assert.deepEqual(JSON.parse(read.contents[0]?.text ?? ''), { id: '123', templateTest: true, data: 'Data for ID: 123' });
  });

  it('reads the watched resource without caching it', async () => {
    const read = (await h.request('resources/read', { uri: 'test://watched-resource' })) as Contents;
    assert.equal(read.contents[0]?.text, 'Watched resource content (revision 0)');
    assert.equal(read.ttlMs, 0);
  });

  it('an unknown resource is -32602 with the uri in data', async () => {
    const uri = 'test://nonexistent-resource-for-conformance-testing';
    const error = await rpcError(h.request('resources/read', { uri }), -32602);
    assert.deepEqual(error.data, { uri });
  });

  it('completes template ids by prefix', async () => {
    const done = (await h.request('completion/complete', { ref: { type: 'ref/resource', uri: 'test://template/{id}/data' }, argument: { name: 'id', value: '1' } })) as {
      completion: { values: string[]; total: number; hasMore: boolean };
    };
    assert.deepEqual(done.completion, { values: TEMPLATE_IDS.filter((id) => id.startsWith('1')), total: 3, hasMore: false });
    const none = (await h.request('completion/complete', { ref: { type: 'ref/resource', uri: 'test://template/{id}/data' }, argument: { name: 'id', value: 'x' } })) as {
      completion: { values: string[] };
    };
    assert.deepEqual(none.completion.values, []);
  });
});
