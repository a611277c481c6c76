import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpServer } from '../../../src/server/mcpServer.js';
import { withDeclaredMimeType } from '../../../src/server/resources.js';
import { connectRaw } from './support.js';

describe('server/resources: the declared mimeType', () => {
  it('a resource declared application/json reads back as application/json', async () => {
    const s = new McpServer({ name: 'res', version: '1.0.0' });
    s.resource('config://app', { name: 'config', mimeType: 'application/json' }, () => [{ text: '{"debug":true}' }]);
    s.resourceTemplate('user://{id}', { name: 'user', mimeType: 'application/json' }, (_uri, { id }) => ({ contents: [{ text: JSON.stringify({ id }) }] }));
    const c = await connectRaw(s);
    try {
      assert.deepEqual((await c.call('resources/read', { uri: 'config://app' }))['contents'], [{ uri: 'config://app', mimeType: 'application/json', text: '{"debug":true}' }]);
      assert.deepEqual((await c.call('resources/read', { uri: 'user://7' }))['contents'], [{ uri: 'user://7', mimeType: 'application/json', text: '{"id":"7"}' }]);
    } finally {
      await c.close();
    }
  });

  it('keeps a mimeType the handler gives, and leaves contents of other URIs alone', () => {
    const out = withDeclaredMimeType(
      { contents: [{ text: 'a' }, { uri: 'x://r', text: 'b' }, { uri: 'x://other', text: 'c' }, { text: 'd', mimeType: 'text/plain' }], _meta: { k: 1 } },
      'application/json',
      'x://r',
    );
    assert.deepEqual(out, {
      contents: [
        { text: 'a', mimeType: 'application/json' },
        { uri: 'x://r', text: 'b', mimeType: 'application/json' },
        { uri: 'x://other', text: 'c' },
        { text: 'd', mimeType: 'text/plain' },
      ],
      _meta: { k: 1 },
    });
    const undeclared = [{ text: 'a' }];
    assert.equal(withDeclaredMimeType(undeclared, undefined, 'x://r'), undeclared);
  });
});
