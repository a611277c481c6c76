// The canonical server URL OAuth tokens are stored under: URL origin + path.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalServerUrl, isLoopbackHttp } from '../../../src/host/canonicalServerUrl.js';

describe('host/canonicalServerUrl', () => {
  it('is the normalized origin plus the path, without query or fragment', () => {
    assert.equal(canonicalServerUrl('https://MCP.Example.com:443/mcp?tenant=a#x'), 'https://mcp.example.com/mcp');
    assert.equal(canonicalServerUrl('http://127.0.0.1:8080/a/b'), 'http://127.0.0.1:8080/a/b');
    assert.equal(canonicalServerUrl('https://mcp.example.com'), 'https://mcp.example.com/');
  });

  it('identity confusion: scheme, port, host and path each make a different canonical URL', () => {
    const base = canonicalServerUrl('https://mcp.example.com/mcp');
    for (const other of ['http://mcp.example.com/mcp', 'https://mcp.example.com:8443/mcp', 'https://mcp.example.com.evil.test/mcp', 'https://mcp.example.com/mcp/', 'https://mcp.example.com/MCP']) {
      assert.notEqual(canonicalServerUrl(other), base, other);
    }
  });

  it('isLoopbackHttp: plain http only to this machine', () => {
    assert.equal(isLoopbackHttp('http://127.0.0.1:9/x'), true);
    assert.equal(isLoopbackHttp('http://localhost/x'), true);
    assert.equal(isLoopbackHttp('http://[::1]:3/x'), true);
    assert.equal(isLoopbackHttp('https://127.0.0.1/x'), false);
    assert.equal(isLoopbackHttp('http://127.0.0.1.evil.test/x'), false);
    assert.equal(isLoopbackHttp('http://example.com/x'), false);
    assert.equal(isLoopbackHttp('not a url'), false);
  });
});
