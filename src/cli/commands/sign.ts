/**
 * `switchboard sign`: signs a server's lists (or a key rotation) as described in
 * `docs/signing.md`. A server built on Switchboard signs by itself when given the key
 * (`new McpServer(info, { signing: { key } })`); `sign` is for other implementations and for CI.
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import type { JWK } from 'jose';
import { importSigningKey, manifestPayload, signManifest, signRotation } from '../../protocol/manifest.js';
import { CliFailure, UsageError } from '../args.js';
import { defineCommand } from '../command.js';

/** `switchboard sign`. */
export const command = defineCommand({
  name: 'sign',
  summary: "sign a server's lists (or a key rotation) as a JWS",
  usage: ['--key FILE --name SERVER LISTS.json', '--key OLD.json --rotate-to NEW.json'],
  description: `Signs the digest list of a server's tools, prompts and resource templates and prints the
compact JWS (put it in the _meta "dev.switchboard/manifest" of list results as
{ "jws": ... }, see docs/signing.md). LISTS.json holds { "tools": [...], "prompts": [...],
"resourceTemplates": [...] } as the server lists them (a saved tools/list result works).`,
  positionals: [{ name: 'LISTS.json', description: "the server's lists" }],
  options: {
    key: { type: 'string', value: 'FILE', description: 'the private JWK (from switchboard keygen)' },
    name: { type: 'string', value: 'SERVER', description: "the server's serverInfo.name (the manifest is bound to it)" },
    'rotate-to': {
      type: 'string',
      value: 'FILE',
      description: "instead: a rotation statement handing over from --key to this key's public part (hosts that pinned the old key accept the new one)",
    },
  },
  async run({ options, positionals }) {
    if (typeof options['key'] !== 'string') throw new UsageError('--key FILE is required');
    const key = await importSigningKey((await readJson(options['key'])) as JWK);
    if (typeof options['rotate-to'] === 'string') {
      if (positionals.length > 0) throw new UsageError('--rotate-to takes no lists file');
      const next = (await readJson(options['rotate-to'])) as JWK;
      process.stdout.write(`${await signRotation(key, next, Math.floor(Date.now() / 1000))}\n`);
      return;
    }
    if (typeof options['name'] !== 'string') throw new UsageError('--name SERVER is required (the serverInfo.name the manifest is bound to)');
    const [file, ...extra] = positionals;
    if (file === undefined || extra.length > 0) throw new UsageError('give exactly one LISTS.json');
    const lists = (await readJson(file)) as Record<string, unknown>;
    const list = (member: string): never[] => {
      const value = lists[member] ?? [];
      if (!Array.isArray(value)) throw new CliFailure(`${file}: "${member}" is not an array`);
      return value as never[];
    };
    const payload = manifestPayload(options['name'], { tools: list('tools'), prompts: list('prompts'), resourceTemplates: list('resourceTemplates') }, Math.floor(Date.now() / 1000));
    process.stdout.write(`${await signManifest(payload, key)}\n`);
  },
});

async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CliFailure(`cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new CliFailure(`${file} is not JSON`);
  }
}
