// `switchboard audit export | head` (#33): a reader that goes away ends the output; no EPIPE crash.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';

const root = new URL('../../../', import.meta.url).pathname;

describe('cli: stdout closed by its reader', { timeout: 60_000 }, () => {
  it('EPIPE on stdout is a normal end: exit 0, no stack trace', { timeout: 60_000 }, async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', '--help'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
    assert.equal(code, 0, stderr);
    assert.doesNotMatch(stderr, /EPIPE|Error/);
  });
});
