/**
 * `switchboard keygen`: makes a key to sign a server's manifest (`docs/signing.md`).
 *
 * @module
 */
import { writeFile } from 'node:fs/promises';
import { generateSigningKey, keyThumbprint, type ManifestAlgorithm } from '../../protocol/manifest.js';
import { CliFailure, UsageError } from '../args.js';
import { defineCommand, noPositionals } from '../command.js';

/** `switchboard keygen`. */
export const command = defineCommand({
  name: 'keygen',
  summary: "make a key to sign a server's manifest (Ed25519 or P-256)",
  usage: ['[--alg EdDSA|ES256] [--out FILE]'],
  description: `Makes a signing key for a server's manifest: Ed25519 (EdDSA, default) or P-256 (ES256).
The private JWK is written to FILE (mode 0600); the public JWK and its thumbprint are printed,
for the hosts' "trustedKeys".`,
  options: {
    alg: { type: 'string', value: 'ALG', description: 'EdDSA (Ed25519) or ES256 (P-256)', default: 'EdDSA' },
    out: { type: 'string', value: 'FILE', description: 'where the private JWK goes (never overwritten)', default: 'switchboard-signing-key.json' },
  },
  async run(parsed) {
    noPositionals(parsed);
    const { options } = parsed;
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
  },
});
