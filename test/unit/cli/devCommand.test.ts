// `switchboard dev <server.ts>`: runs a TypeScript file through tsx watch with PORT set,
// prints how to connect, and restarts the file when it changes (waits on output, no sleeps).
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { connectHint, findTsx } from '../../../src/cli/commands/dev.js';
import { cli, root, startCli } from './cliProcess.js';

const server = (version: string): string => `const version: string = '${version}';\nconsole.log(\`dev server \${version} on port \${process.env['PORT'] ?? '?'}\`);\nsetInterval(() => undefined, 60_000);\n`;

describe('switchboard dev', () => {
  it('starts the file with PORT, prints how to connect, and reloads on change', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-dev-'));
    const file = join(dir, 'server.ts');
    writeFileSync(file, server('v1'));
    const running = startCli(['dev', '--port', '39877', file]);
    try {
      await running.waitFor(/dev server v1 on port 39877/);
      assert.match(running.output(), /HTTP server: {2}http:\/\/127\.0\.0\.1:39877\/mcp {3}e\.g\. switchboard tools http:\/\/127\.0\.0\.1:39877\/mcp/);
      writeFileSync(file, server('v2'));
      await running.waitFor(/dev server v2 on port 39877/);
    } finally {
      await running.stop();
    }
  });

  it('a missing file or no file is a clear error', async () => {
    const missing = await cli(['dev', join(tmpdir(), 'sb-no-such-server.ts')]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^switchboard dev: .*sb-no-such-server\.ts does not exist\n$/);
    assert.equal((await cli(['dev'])).code, 2);
  });

  it('finds tsx where it is installed, and nothing where it is not', () => {
    assert.ok(findTsx([root])?.includes('tsx'));
    assert.equal(findTsx([mkdtempSync(join(tmpdir(), 'sb-no-tsx-'))]), undefined);
    assert.match(connectHint('s.ts', 3000, '/mcp'), /switchboard tools "npx tsx s\.ts"/);
  });
});
