import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { launchPackages } from '../../../src/host/launchPackages.js';

/** `ecosystem name version pinned` of each package the launch fetches. */
const read = (command: string, args: readonly string[]): string[] => launchPackages(command, args).map((p) => `${p.ecosystem} ${p.name} ${p.version ?? '-'} ${p.pinned ? 'pinned' : 'unpinned'}`);

describe('host/launchPackages: the packages a launch command fetches', { timeout: 10_000 }, () => {
  it('npx: -y/--yes, no version, a version, a range, a tag, scoped names', () => {
    assert.deepEqual(read('npx', ['-y', '@modelcontextprotocol/server-github']), ['npm @modelcontextprotocol/server-github - unpinned']);
    assert.deepEqual(read('npx', ['--yes', '@modelcontextprotocol/server-github@2025.4.8', '--flag']), ['npm @modelcontextprotocol/server-github 2025.4.8 pinned']);
    assert.deepEqual(read('npx', ['-y', 'firecrawl-mcp@^1.2.0']), ['npm firecrawl-mcp ^1.2.0 unpinned']);
    assert.deepEqual(read('npx', ['-y', 'mcp-remote@latest', 'https://e.com/mcp']), ['npm mcp-remote latest unpinned']);
    assert.deepEqual(read('npx', ['-y', 'mcp-remote@1.0.0-beta.2']), ['npm mcp-remote 1.0.0-beta.2 pinned']);
  });

  it('npx -p/--package names the packages and the first positional is a command, not a package', () => {
    assert.deepEqual(read('npx', ['-y', '-p', '@playwright/mcp@0.0.30', 'mcp-server-playwright']), ['npm @playwright/mcp 0.0.30 pinned']);
    assert.deepEqual(read('npx', ['--package=@playwright/mcp', '--package', 'left-pad@1.0.0', 'run']), ['npm @playwright/mcp - unpinned', 'npm left-pad 1.0.0 pinned']);
    assert.deepEqual(read('npx', ['-c', 'echo hi']), []);
  });

  it('npm exec, pnpm dlx (with --package before it), pnpx, yarn dlx, bunx, bun x', () => {
    assert.deepEqual(read('npm', ['exec', '--yes', '--', '@stripe/mcp@0.2.0']), ['npm @stripe/mcp 0.2.0 pinned']);
    assert.deepEqual(read('pnpm', ['dlx', '@playwright/mcp']), ['npm @playwright/mcp - unpinned']);
    assert.deepEqual(read('pnpm', ['--package=@playwright/mcp@1.0.0', 'dlx', 'mcp-server-playwright']), ['npm @playwright/mcp 1.0.0 pinned']);
    assert.deepEqual(read('pnpx', ['mcp-remote@0.1.0']), ['npm mcp-remote 0.1.0 pinned']);
    assert.deepEqual(read('yarn', ['dlx', 'mcp-remote']), ['npm mcp-remote - unpinned']);
    assert.deepEqual(read('bunx', ['--bun', '@upstash/context7-mcp@1.0.0']), ['npm @upstash/context7-mcp 1.0.0 pinned']);
    assert.deepEqual(read('bun', ['x', 'mcp-remote']), ['npm mcp-remote - unpinned']);
  });

  it('uvx, uv tool run, pipx run: ==, @, ranges, --from, --with, extras', () => {
    assert.deepEqual(read('uvx', ['mcp-server-fetch']), ['pypi mcp-server-fetch - unpinned']);
    assert.deepEqual(read('uvx', ['mcp-server-fetch==0.6.2']), ['pypi mcp-server-fetch ==0.6.2 pinned']);
    assert.deepEqual(read('uvx', ['mcp-server-fetch@0.6.2']), ['pypi mcp-server-fetch @0.6.2 pinned']);
    assert.deepEqual(read('uvx', ['mcp-server-fetch@latest']), ['pypi mcp-server-fetch @latest unpinned']);
    assert.deepEqual(read('uvx', ['mcp-server-fetch>=0.6']), ['pypi mcp-server-fetch >=0.6 unpinned']);
    assert.deepEqual(read('uvx', ['--python', '3.12', '--from', 'mcp-server-git[x]==1.0', '--with', 'httpx', 'mcp-server-git']), ['pypi mcp-server-git ==1.0 pinned', 'pypi httpx - unpinned']);
    assert.deepEqual(read('uv', ['tool', 'run', 'mcp-server-time==1.0.0']), ['pypi mcp-server-time ==1.0.0 pinned']);
    assert.deepEqual(read('pipx', ['run', '--spec', 'mcp-server-sqlite==0.6.2', 'mcp-server-sqlite']), ['pypi mcp-server-sqlite ==0.6.2 pinned']);
  });

  it('docker run: options with values skipped, no tag, a tag, a digest, a registry with a port', () => {
    const digest = `sha256:${'a'.repeat(64)}`;
    assert.deepEqual(read('docker', ['run', '-i', '--rm', '-e', 'GITHUB_PERSONAL_ACCESS_TOKEN', 'ghcr.io/github/github-mcp-server']), ['docker ghcr.io/github/github-mcp-server - unpinned']);
    assert.deepEqual(read('docker', ['run', '-it', '--network=host', '-v', '/a:/b', 'mcp/fetch:latest', '--arg']), ['docker mcp/fetch latest unpinned']);
    assert.deepEqual(read('docker', ['run', '-i', `mcp/github@${digest}`]), [`docker mcp/github ${digest} pinned`]);
    assert.deepEqual(read('podman', ['container', 'run', '-eTOKEN=x', 'localhost:5000/mcp/git']), ['docker localhost:5000/mcp/git - unpinned']);
  });

  it('the runner is found behind a path, a Windows suffix, cmd /c and sh -c', () => {
    assert.deepEqual(read('/usr/local/bin/npx', ['-y', 'mcp-remote']), ['npm mcp-remote - unpinned']);
    assert.deepEqual(read('C:\\Program Files\\nodejs\\npx.cmd', ['-y', 'mcp-remote']), ['npm mcp-remote - unpinned']);
    assert.deepEqual(read('cmd', ['/c', 'npx', '-y', 'mcp-remote@1.0.0']), ['npm mcp-remote 1.0.0 pinned']);
    assert.deepEqual(read('sh', ['-c', 'exec uvx mcp-server-fetch']), ['pypi mcp-server-fetch - unpinned']);
  });

  it('npm alias, git shorthand, git at a commit, local paths', () => {
    const alias = launchPackages('npx', ['-y', '@modelcontextprotocol/server-github@npm:evil-pkg@1.0.0'])[0];
    assert.deepEqual([alias?.name, alias?.alias, alias?.pinned], ['evil-pkg', '@modelcontextprotocol/server-github', true]);
    assert.deepEqual(read('npx', ['-y', 'modelcontextprotocol/server-github']), ['npm modelcontextprotocol/server-github - unpinned']);
    assert.deepEqual(read('npx', ['-y', `github:acme/tool#${'c'.repeat(40)}`]), [`npm acme/tool ${'c'.repeat(40)} pinned`]);
    assert.deepEqual(read('npx', ['-y', './local-server']), ['npm ./local-server - pinned']);
  });

  it('commands that fetch nothing: node, python, a binary, npm without exec, docker without run', () => {
    for (const [command, args] of [['node', ['server.js']], ['python', ['-m', 'server']], ['/opt/mcp/server', []], ['npm', ['start']], ['docker', ['exec', 'c', 'x']]] as const) assert.deepEqual(read(command, args), []);
  });
});
