// The terminal's questions (launch consent's yes/no and a call's consent prompt) throw away what
// was typed before they were shown (#33: "a stray Enter denies the next terminal consent").
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { askYesNo, terminalConsentProvider } from '../../../src/cli/consentTerminal.js';
import type { ConsentRequest } from '../../../src/host/consent/consentTypes.js';

/** Resolves when `output` has printed text containing `marker`. */
function printed(output: PassThrough, marker: string): Promise<void> {
  let seen = '';
  return new Promise((resolve) => {
    output.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes(marker)) resolve();
    });
  });
}

const request: ConsentRequest = {
  id: 'r1',
  createdAt: new Date(0).toISOString(),
  expiresAt: new Date(60_000).toISOString(),
  method: 'tools/call',
  server: { id: 'files', identity: 'stdio:sha256:00' },
  tool: 'delete_file',
  arguments: { path: '/tmp/x' },
  reasons: ['the policy asks'],
  binding: { serverIdentity: 'stdio:sha256:00', tool: 'delete_file', definitionDigest: 'sha256:00', argumentsDigest: 'sha256:00' },
};

describe('terminal questions flush input typed before them', { timeout: 10_000 }, () => {
  it('a stray Enter typed before a launch question does not answer it; the answer given after it does', { timeout: 5_000 }, async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    input.write('\n');
    const shown = printed(output, '[y/N]');
    const answer = askYesNo('Start it?', { input, output });
    await shown;
    input.write('y\n');
    assert.equal(await answer, true);
  });

  it('a stray "y" typed before a launch question does not approve it', { timeout: 5_000 }, async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    input.write('y\n');
    const shown = printed(output, '[y/N]');
    const answer = askYesNo('Start it?', { input, output });
    await shown;
    input.write('n\n');
    assert.equal(await answer, false);
  });

  it("a stray Enter typed before a call's consent prompt neither denies nor approves it", { timeout: 5_000 }, async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    input.write('\n');
    const shown = printed(output, 'Allow?');
    const provider = terminalConsentProvider({ input, output });
    const answer = provider.ask(request, { signal: new AbortController().signal } as never);
    await shown;
    input.write('y\n');
    assert.equal((await answer).approved, true);
  });
});
