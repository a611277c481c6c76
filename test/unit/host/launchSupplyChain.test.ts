import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { acknowledgedFlags, imitation, launchFindings, WELL_KNOWN_PACKAGES } from '../../../src/host/launchSupplyChain.js';

const GITHUB = '@modelcontextprotocol/server-github';
/** `kind ~ imitates` of each flag on `npx -y <spec>`. */
const flags = (spec: string, command = 'npx', pre: readonly string[] = ['-y']): string[] =>
  launchFindings(command, [...pre, spec])
    .filter((f) => f.severity === 'flag')
    .map((f) => `${f.kind} ~ ${f.imitates ?? ''}`);

describe('host/launchSupplyChain: look-alikes of well-known server packages', { timeout: 10_000 }, () => {
  it('typosquat: one deletion, insertion, substitution or adjacent swap from a well-known name is flagged', () => {
    for (const spec of ['@modelcontextprotocol/server-githb@1.0.0', '@modelcontextprotocol/server-githubb@1.0.0', '@modelcontextprotocol/server-gitgub@1.0.0', '@modelcontextprotocol/server-gihtub@1.0.0', '@modelcontextprotoco/server-github@1.0.0']) {
      assert.deepEqual(flags(spec), [`typosquat ~ ${GITHUB}`], spec);
    }
    assert.deepEqual(flags('@playwrigth/mcp@1.0.0', 'bunx', []), ['typosquat ~ @playwright/mcp']);
    assert.deepEqual(flags('mcp-server-fetc==0.6.2', 'uvx', []), ['typosquat ~ mcp-server-fetch']);
    assert.deepEqual(flags('mcp/githb:1.0', 'docker', ['run', '-i']), ['typosquat ~ mcp/github']);
  });

  it('confusable: capital I for l, Cyrillic and Greek letters, zero-width characters, 0 for o', () => {
    assert.deepEqual(flags('@modeIcontextprotocol/server-github@1.0.0'), [`confusable ~ ${GITHUB}`]);
    assert.deepEqual(flags('@modelcontextprotocоl/server-github@1.0.0'), [`confusable ~ ${GITHUB}`], 'Cyrillic о');
    assert.deepEqual(flags('@modelcontextprotocol/server-gіthub@1.0.0'), [`confusable ~ ${GITHUB}`], 'Cyrillic і');
    assert.deepEqual(flags('@modelcontextprotocol/server-git\u200bhub@1.0.0'), [`confusable ~ ${GITHUB}`], 'zero-width space');
    assert.deepEqual(flags('@m0delcontextpr0tocol/server-github@1.0.0'), [`confusable ~ ${GITHUB}`]);
    assert.deepEqual(flags('@modeIcontextprotocoI/server-githb@1.0.0'), [`confusable ~ ${GITHUB}`], 'two capital Is and one edit');
  });

  it('confusable: scope swaps and separator swaps (-, _, .), a dropped @ (a GitHub repository to npx)', () => {
    assert.deepEqual(flags('@modelcontextprotocol-/server-github@1.0.0'), [`confusable ~ ${GITHUB}`]);
    assert.deepEqual(flags('@model-context-protocol/server-github@1.0.0'), [`confusable ~ ${GITHUB}`]);
    assert.deepEqual(flags('@modelcontextprotocol/server_github@1.0.0'), [`confusable ~ ${GITHUB}`]);
    assert.deepEqual(flags('@modelcontextprotocol/server.github@1.0.0'), [`confusable ~ ${GITHUB}`]);
    assert.deepEqual(flags('modelcontextprotocol/server-github'), [`confusable ~ ${GITHUB}`]);
    assert.deepEqual(flags('mcp.server.fetch==1.0', 'uvx', []).length, 0, 'PEP 503: mcp.server.fetch IS mcp-server-fetch');
    assert.deepEqual(flags('mcpserverfetch==1.0', 'uvx', []), ['confusable ~ mcp-server-fetch']);
  });

  it('confusable: an npm alias that shows a well-known name and fetches another package', () => {
    assert.deepEqual(flags(`${GITHUB}@npm:evil-helper@1.0.0`), [`confusable ~ ${GITHUB}`]);
    assert.deepEqual(flags(`${GITHUB}@npm:${GITHUB}@1.0.0`), [], 'an alias to itself is the package');
  });

  it('well-known names, and names far from them, are not flagged (every listed name, and common other servers)', () => {
    for (const [ecosystem, names] of Object.entries(WELL_KNOWN_PACKAGES)) {
      for (const name of names) assert.equal(imitation(ecosystem as 'npm', name), undefined, name);
    }
    for (const spec of ['@modelcontextprotocol/server-gitlab@1.0.0', '@acme/server-github@1.0.0', 'github-mcp-custom@1.0.0', 'tavily-mcp@0.1.0', '@notionhq/notion-mcp-server@1.0.0', 'mcp-server-kubernetes@1.0.0', '@modelcontextprotocol/sdk@1.0.0']) {
      assert.deepEqual(flags(spec), [], spec);
    }
    assert.deepEqual(flags('mcp_server_fetch==0.6.2', 'uvx', []), []);
    assert.deepEqual(flags('docker.io/mcp/github:1', 'docker', ['run']), [], 'docker.io/ is Docker Hub');
  });
});

describe('host/launchSupplyChain: unpinned packages are warned with the fix', { timeout: 10_000 }, () => {
  const unpinned = (command: string, args: readonly string[]): string[] => launchFindings(command, args).filter((f) => f.kind === 'unpinned').map((f) => f.message);

  it('unpinned: npx with no version, a range or a tag; the fix names pkg@x.y.z', () => {
    const [none] = unpinned('npx', ['-y', GITHUB]);
    assert.match(none ?? '', /is not pinned: no version.*pin one release: @modelcontextprotocol\/server-github@x\.y\.z/);
    assert.match(unpinned('npx', ['-y', `${GITHUB}@latest`])[0] ?? '', /"latest", not one exact release/);
    assert.match(unpinned('npx', ['-y', `${GITHUB}@^1.2.0`])[0] ?? '', /"\^1\.2\.0", not one exact release/);
    assert.match(unpinned('pnpm', ['dlx', 'mcp-remote@next'])[0] ?? '', /pnpm dlx "mcp-remote@next"/);
  });

  it('unpinned: uvx without ==, a docker image by tag or none; the fixes name ==x.y.z and @sha256', () => {
    assert.match(unpinned('uvx', ['mcp-server-fetch'])[0] ?? '', /pin one release: mcp-server-fetch==x\.y\.z/);
    assert.match(unpinned('docker', ['run', '-i', 'mcp/github'])[0] ?? '', /no tag \(latest\).*mcp\/github@sha256:<digest>/);
    assert.match(unpinned('docker', ['run', '-i', 'mcp/github:1.0'])[0] ?? '', /a tag \("1\.0"\), which can be moved/);
  });

  it('unpinned: a git source not at a commit; the fix names the commit', () => {
    assert.match(unpinned('npx', ['-y', 'github:acme/mcp-tool#main'])[0] ?? '', /pin a commit: github:acme\/mcp-tool#<40-hex commit>/);
    assert.match(unpinned('uvx', ['git+https://github.com/acme/mcp-tool@main'])[0] ?? '', /pin a commit: git\+https:\/\/github\.com\/acme\/mcp-tool@<40-hex commit>/);
    assert.deepEqual(unpinned('npx', ['-y', `github:acme/mcp-tool#${'e'.repeat(40)}`]), []);
  });

  it('pinned launches have no warning; an unpinned launch is a warning, never a flag', () => {
    assert.deepEqual(launchFindings('npx', ['-y', `${GITHUB}@2025.4.8`]), []);
    assert.deepEqual(launchFindings('uvx', ['mcp-server-fetch==0.6.2']), []);
    assert.deepEqual(launchFindings('docker', ['run', '-i', `mcp/github@sha256:${'b'.repeat(64)}`]), []);
    assert.deepEqual(launchFindings('npx', ['-y', GITHUB]).map((f) => f.severity), ['warn']);
  });

  it('the acknowledged flags name each flag, and no warning', () => {
    assert.deepEqual(acknowledgedFlags(launchFindings('npx', ['-y', '@modelcontextprotocol/server-githb'])), [`typosquat:@modelcontextprotocol/server-githb~${GITHUB}`]);
    assert.deepEqual(acknowledgedFlags(launchFindings('npx', ['-y', GITHUB])), []);
  });
});
