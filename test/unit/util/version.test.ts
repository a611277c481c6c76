// The version constant every announced Implementation uses is the package's own.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { SWITCHBOARD_VERSION } from '../../../src/util/version.js';
import { cli } from '../cli/cliProcess.js';

const packageVersion = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

describe('util/version', () => {
  it('SWITCHBOARD_VERSION equals package.json version (bump both together)', { timeout: 5_000 }, () => {
    assert.equal(SWITCHBOARD_VERSION, packageVersion);
  });

  it('switchboard --version prints it', { timeout: 60_000 }, async () => {
    const run = await cli(['--version']);
    assert.equal(run.code, 0);
    assert.equal(run.stdout, `${packageVersion}\n`);
  });
});
