/**
 * `switchboard keygen` and `switchboard sign`: make a signing key, and sign a server's lists
 * (or a key rotation) as described in `docs/signing.md`. A server built on Switchboard signs
 * by itself when given the key (`new McpServer(info, { signing: { key } })`); `sign` is for
 * other implementations and for CI.
 *
 * @module
 */
import { readFile, writeFile } from 'node:fs/promises';
import type { JWK } from 'jose';
import { generateSigningKey, importSigningKey, keyThumbprint, manifestPayload, signManifest, signRotation, type ManifestAlgorithm } from '../protocol/manifest.js';
import { CliFailure, parseArgs, UsageError } from './args.js';

/** Help text of `keygen`. */
export const keygenHelp = `Usage: switchboard keygen [--alg EdDSA|ES256] [--out FILE]

Makes a signing key for a server's manifest: Ed25519 (EdDSA, default) or P-256 (ES256).
The private JWK is written to FILE (default switchboard-signing-key.json, mode 0600);
the public JWK and its thumbprint are printed, for the hosts' "trustedKeys".
`;

/** Help text of `sign`. */
export const signHelp = `Usage: switchboard sign --key FILE --name SERVER LISTS.json
       switchboard sign --key OLD.json --rotate-to NEW.json

Signs the digest list of a server's tools, prompts and resource templates and prints the
compact JWS (put it in the _meta "${'dev.switchboard/manifest'}" of list results as
{ "jws": ... }, see docs/signing.md). LISTS.json holds { "tools": [...], "prompts": [...],
"resourceTemplates": [...] } as the server lists them (a saved tools/list result works).

  --key FILE        the private JWK (from switchboard keygen)
  --name SERVER     the server's serverInfo.name (the manifest is bound to it)
  --rotate-to FILE  instead: a rotation statement handing over from --key to this key's
                    public part (hosts that pinned the old key accept the new one)
`;

/** Runs `keygen`. */
export async function keygenCommand(argv: readonly string[]): Promise<void> {
  const { options, positionals } = parseArgs(argv, { alg: 'string', out: 'string' });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const alg = (options['alg'] ?? 'EdDSA') as string;
  if (alg !== 'EdDSA' && alg !== 'ES256') throw new UsageError(`--alg must be EdDSA or ES256, not ${alg}`);
  const out = typeof options['out'] === 'string' ? options['out'] : 'switchboard-signing-key.json';
  const { privateJwk, publicJwk } = await generateSigningKey(alg as ManifestAlgorithm);
  try {
    await writeFile(out, `${JSON.stringify(privateJwk, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new CliFailure(`${out} exists; not overwriting a key (choose another --out)`);
    throw error;
  }
  process.stderr.write(`Private key written to ${out} (keep it secret). Public key, for "trustedKeys":\n`);
  process.stdout.write(`${JSON.stringify({ jwk: publicJwk, thumbprint: await keyThumbprint(publicJwk) }, null, 2)}\n`);
}

/** Runs `sign`. */
export async function signCommand(argv: readonly string[]): Promise<void> {
  const { options, positionals } = parseArgs(argv, { key: 'string', name: 'string', 'rotate-to': 'string' });
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
}

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
