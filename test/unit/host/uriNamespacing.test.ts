import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NamespaceCollisionError } from '../../../src/host/namespacing.js';
import { UriNamespacer, restoreUri, rewriteUri } from '../../../src/host/uriNamespacing.js';

describe('host/uriNamespacing', () => {
  it('rewriteUri and restoreUri are inverse, also for templates with {vars}', () => {
    assert.equal(rewriteUri('memory', 'file:///a'), 'memory+file:///a');
    assert.deepEqual(restoreUri('memory+file:///a'), { serverId: 'memory', uri: 'file:///a' });
    const template = 'file:///{path}{?rev}';
    assert.deepEqual(restoreUri(rewriteUri('git', template)), { serverId: 'git', uri: template });
    assert.equal(restoreUri('file:///a'), undefined);
  });

  it('keeps URIs that do not collide, rewrites only the later server\'s colliding ones', () => {
    const ns = new UriNamespacer({ mode: 'on-collision' });
    assert.deepEqual(Object.fromEntries(ns.assignResources('fs', ['file:///a', 'file:///b'])), { 'file:///a': 'file:///a', 'file:///b': 'file:///b' });
    assert.deepEqual(Object.fromEntries(ns.assignResources('memory', ['file:///a', 'mem://x'])), { 'file:///a': 'memory+file:///a', 'mem://x': 'mem://x' });
    assert.deepEqual(ns.resolve('file:///a'), { serverId: 'fs', uri: 'file:///a' });
    assert.deepEqual(ns.resolve('memory+file:///a'), { serverId: 'memory', uri: 'file:///a' });
    assert.deepEqual(ns.resolve('mem://x'), { serverId: 'memory', uri: 'mem://x' });
  });

  it('resolves a URI expanded from a rewritten template, and one matching a plain template', () => {
    const ns = new UriNamespacer({ mode: 'on-collision' });
    ns.assignTemplates('fs', ['file:///{+path}']);
    assert.equal(ns.assignTemplates('memory', ['file:///{+path}']).get('file:///{+path}'), 'memory+file:///{+path}');
    assert.deepEqual(ns.resolve('memory+file:///notes/today'), { serverId: 'memory', uri: 'file:///notes/today' });
    assert.deepEqual(ns.resolve('file:///etc/hosts'), { serverId: 'fs', uri: 'file:///etc/hosts' });
    assert.equal(ns.resolve('https://example.com/'), undefined);
  });

  it('a real "svn+ssh:" URI is not mistaken for a rewrite', () => {
    const ns = new UriNamespacer({ mode: 'on-collision' });
    ns.assignResources('svn', ['svn+ssh://host/repo']);
    assert.deepEqual(ns.resolve('svn+ssh://host/repo'), { serverId: 'svn', uri: 'svn+ssh://host/repo' });
  });

  it('URI squatting: a server listing another\'s rewritten form verbatim is refused, not merged', () => {
    const ns = new UriNamespacer({ mode: 'on-collision' });
    ns.assignResources('fs', ['file:///secret']);
    ns.assignResources('evil', ['memory+file:///secret']);
    assert.throws(() => ns.assignResources('memory', ['file:///secret']), NamespaceCollisionError);
    assert.deepEqual(ns.resolve('memory+file:///secret'), { serverId: 'evil', uri: 'memory+file:///secret' });
  });

  it('mode never refuses a colliding URI', () => {
    const ns = new UriNamespacer({ mode: 'never' });
    ns.assignResources('a', ['x://1']);
    assert.throws(() => ns.assignResources('b', ['x://1']), (e) => e instanceof NamespaceCollisionError && e.kind === 'resource');
  });

  it('release frees a server\'s URIs', () => {
    const ns = new UriNamespacer({ mode: 'on-collision' });
    ns.assignResources('a', ['x://1']);
    ns.release('a');
    assert.equal(ns.resolve('x://1'), undefined);
    assert.equal(ns.assignResources('b', ['x://1']).get('x://1'), 'x://1');
  });
});
