/**
 * Signed manifests (a Switchboard extension, specified in `docs/signing.md`): a compact JWS
 * (Ed25519 `EdDSA` or `ES256`) over the digest list of a server's tools, prompts and resource
 * templates. A server publishes it in the `_meta` of its list results under
 * {@link MANIFEST_META_KEY} (and, over HTTP, at {@link MANIFEST_WELL_KNOWN_PATH}); a host
 * that trusts the key knows every definition it received is the one the key holder signed.
 *
 * - Each definition's digest is `sha256:` + hex SHA-256 of its RFC 8785 canonical JSON, as
 *   the server sends it (`_meta` included).
 * - The protected header carries the public key (`jwk`) and `typ` {@link MANIFEST_TYP}; who
 *   the key belongs to is the verifier's decision (its RFC 7638 thumbprint is returned).
 * - `sub` names the server (its `serverInfo.name`), so a manifest cannot be replayed by
 *   another server with other definitions or another name.
 * - A key rotation is a JWS of `typ` {@link ROTATION_TYP} signed by the old key, naming the
 *   new public key.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7515
 * @see https://www.rfc-editor.org/rfc/rfc8785
 * @module
 */
import type * as Jose from 'jose';
import { canonicalize } from '../util/canonicalJson.js';
import { McpError, McpErrorCode } from '../util/errors.js';
import { sha256Hex } from '../util/sha256.js';

/** The `_meta` key of list results that carries `{ jws, rotations? }`. */
export const MANIFEST_META_KEY = 'dev.switchboard/manifest';
/** Where an HTTP server serves its manifest (`application/jose`); a path suffix names the endpoint (`/.well-known/mcp-manifest/mcp`). */
export const MANIFEST_WELL_KNOWN_PATH = '/.well-known/mcp-manifest';
/** The `typ` header of a manifest. */
export const MANIFEST_TYP = 'mcp-manifest+jws';
/** The `typ` header of a key rotation statement. */
export const ROTATION_TYP = 'mcp-key-rotation+jws';
/** The signature algorithms accepted. */
export const MANIFEST_ALGORITHMS = ['EdDSA', 'ES256'] as const;
/** One of {@link MANIFEST_ALGORITHMS}. */
export type ManifestAlgorithm = (typeof MANIFEST_ALGORITHMS)[number];

/** The definitions a manifest covers, in wire form. */
export interface ManifestLists {
  readonly tools: readonly { readonly name: string }[];
  readonly prompts: readonly { readonly name: string }[];
  readonly resourceTemplates: readonly { readonly uriTemplate: string }[];
}

/** The signed content. */
export interface ManifestPayload {
  readonly v: 1;
  /** The server's `serverInfo.name`. */
  readonly sub: string;
  /** Seconds since the epoch. */
  readonly iat: number;
  /** Tool name → definition digest. */
  readonly tools: Readonly<Record<string, string>>;
  readonly prompts: Readonly<Record<string, string>>;
  /** URI template → definition digest. */
  readonly resourceTemplates: Readonly<Record<string, string>>;
}

/** What travels in `_meta[MANIFEST_META_KEY]`. */
export interface ManifestEnvelope {
  readonly jws: string;
  /** Rotation statements, oldest first, ending at the key that signed `jws`. */
  readonly rotations?: readonly string[];
}

/** A key that signs: the private key and its public JWK. */
export interface ManifestSigningKey {
  readonly alg: ManifestAlgorithm;
  readonly privateKey: CryptoKey | Jose.KeyObject;
  readonly publicJwk: Jose.JWK;
}

/** A verified manifest. */
export interface VerifiedManifest {
  readonly payload: ManifestPayload;
  readonly jwk: Jose.JWK;
  /** RFC 7638 SHA-256 thumbprint (base64url) of the signing key. */
  readonly thumbprint: string;
}

/** A verified rotation statement: the key `from` hands over to `to`. */
export interface VerifiedRotation {
  readonly from: string;
  readonly to: string;
  readonly jwk: Jose.JWK;
  readonly iat: number;
}

/** An invalid manifest or rotation: bad signature, wrong `typ`, malformed payload. */
export class ManifestError extends McpError {
  constructor(detail: string, options?: { cause?: unknown }) {
    super(McpErrorCode.InvalidResponse, `Invalid signed manifest: ${detail}`, options);
  }
}

/** jose, loaded on first use: a server that does not sign never loads it. */
function loadJose(): Promise<typeof Jose> {
  return import('jose');
}

/** `sha256:` + hex SHA-256 of the RFC 8785 canonical JSON of `definition`. */
export function definitionDigest(definition: unknown): string {
  return `sha256:${sha256Hex(canonicalize(definition))}`;
}

/** The payload over `lists` for server `sub` at `iat` (seconds). */
export function manifestPayload(sub: string, lists: ManifestLists, iat: number): ManifestPayload {
  const digests = <T>(items: readonly T[], key: (item: T) => string): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const item of items) Object.defineProperty(out, key(item), { value: definitionDigest(item), enumerable: true, writable: true, configurable: true });
    return out;
  };
  return {
    v: 1,
    sub,
    iat,
    tools: digests(lists.tools, (t) => t.name),
    prompts: digests(lists.prompts, (p) => p.name),
    resourceTemplates: digests(lists.resourceTemplates, (t) => t.uriTemplate),
  };
}

/** RFC 7638 thumbprint (SHA-256, base64url) of a public JWK. */
export async function keyThumbprint(jwk: Jose.JWK): Promise<string> {
  const jose = await loadJose();
  return jose.calculateJwkThumbprint(publicPart(jwk), 'sha256');
}

/** Imports a private JWK (as written by `switchboard keygen`) as a signing key. */
export async function importSigningKey(privateJwk: Jose.JWK): Promise<ManifestSigningKey> {
  const alg = algorithmOf(privateJwk);
  if (typeof privateJwk.d !== 'string') throw new McpError(McpErrorCode.InvalidArgument, 'The signing key is a public key: a private JWK (with "d") is needed');
  const jose = await loadJose();
  const privateKey = (await jose.importJWK(privateJwk, alg)) as CryptoKey;
  return { alg, privateKey, publicJwk: publicPart(privateJwk) };
}

/** Makes a new key pair: `EdDSA` (Ed25519, default) or `ES256` (P-256). Both JWKs are returned. */
export async function generateSigningKey(alg: ManifestAlgorithm = 'EdDSA'): Promise<{ privateJwk: Jose.JWK; publicJwk: Jose.JWK }> {
  const jose = await loadJose();
  const pair = await jose.generateKeyPair(alg, { extractable: true, ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}) });
  const privateJwk = { ...(await jose.exportJWK(pair.privateKey)), alg };
  return { privateJwk, publicJwk: publicPart(privateJwk) };
}

/** Signs `payload` with `key`. */
export async function signManifest(payload: ManifestPayload, key: ManifestSigningKey): Promise<string> {
  const jose = await loadJose();
  return new jose.CompactSign(new TextEncoder().encode(canonicalize(payload))).setProtectedHeader({ alg: key.alg, typ: MANIFEST_TYP, jwk: key.publicJwk }).sign(key.privateKey);
}

/** Signs the statement that `oldKey` hands over to `newPublicJwk`. */
export async function signRotation(oldKey: ManifestSigningKey, newPublicJwk: Jose.JWK, iat: number): Promise<string> {
  const jose = await loadJose();
  const payload = { v: 1, new: publicPart(newPublicJwk), iat };
  return new jose.CompactSign(new TextEncoder().encode(canonicalize(payload))).setProtectedHeader({ alg: oldKey.alg, typ: ROTATION_TYP, jwk: oldKey.publicJwk }).sign(oldKey.privateKey);
}

/** Verifies a manifest's signature against its own header key and checks its shape. Trust in the key is the caller's decision. */
export async function readManifest(jws: string): Promise<VerifiedManifest> {
  const { payload, jwk } = await verifyCompact(jws, MANIFEST_TYP);
  return { payload: checkPayload(payload), jwk, thumbprint: await keyThumbprint(jwk) };
}

/** Verifies a rotation statement (signed by the old key it names). */
export async function readRotation(jws: string): Promise<VerifiedRotation> {
  const { payload, jwk } = await verifyCompact(jws, ROTATION_TYP);
  const p = payload as { v?: unknown; new?: unknown; iat?: unknown };
  if (p.v !== 1 || typeof p.new !== 'object' || p.new === null || typeof p.iat !== 'number') throw new ManifestError('a rotation statement needs { "v": 1, "new": <JWK>, "iat": <seconds> }');
  const next = p.new as Jose.JWK;
  algorithmOf(next);
  return { from: await keyThumbprint(jwk), to: await keyThumbprint(next), jwk: publicPart(next), iat: p.iat };
}

/** The envelope in a list result's `_meta`, or undefined when there is none or it is malformed. */
export function manifestEnvelopeOf(result: Readonly<Record<string, unknown>>): ManifestEnvelope | undefined {
  const meta = result['_meta'];
  if (typeof meta !== 'object' || meta === null) return undefined;
  const envelope = (meta as Record<string, unknown>)[MANIFEST_META_KEY];
  if (typeof envelope !== 'object' || envelope === null) return undefined;
  const { jws, rotations } = envelope as Record<string, unknown>;
  if (typeof jws !== 'string') return undefined;
  if (Array.isArray(rotations) && rotations.every((r) => typeof r === 'string')) return { jws, rotations: rotations as string[] };
  return { jws };
}

function publicPart(jwk: Jose.JWK): Jose.JWK {
  if (jwk.kty === 'OKP') return { kty: 'OKP', crv: jwk.crv as string, x: jwk.x as string };
  if (jwk.kty === 'EC') return { kty: 'EC', crv: jwk.crv as string, x: jwk.x as string, y: jwk.y as string };
  throw new McpError(McpErrorCode.InvalidArgument, `Unsupported key type ${JSON.stringify(jwk.kty)}: use Ed25519 (OKP) or P-256 (EC)`);
}

function algorithmOf(jwk: Jose.JWK): ManifestAlgorithm {
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') return 'EdDSA';
  if (jwk.kty === 'EC' && jwk.crv === 'P-256') return 'ES256';
  throw new McpError(McpErrorCode.InvalidArgument, `Unsupported key ${JSON.stringify(jwk.kty)}/${JSON.stringify(jwk.crv)}: use Ed25519 (EdDSA) or P-256 (ES256)`);
}

async function verifyCompact(jws: string, typ: string): Promise<{ payload: unknown; jwk: Jose.JWK }> {
  const jose = await loadJose();
  let header: Jose.ProtectedHeaderParameters;
  try {
    header = jose.decodeProtectedHeader(jws);
  } catch (error) {
    throw new ManifestError('not a compact JWS', { cause: error });
  }
  if (header.typ !== typ) throw new ManifestError(`the "typ" header is ${JSON.stringify(header.typ)}, expected ${JSON.stringify(typ)}`);
  const jwk = header.jwk;
  if (jwk === undefined || typeof jwk !== 'object') throw new ManifestError('the header carries no "jwk"');
  if ('d' in jwk) throw new ManifestError('the header "jwk" is a private key');
  const alg = algorithmOf(jwk);
  if (header.alg !== alg) throw new ManifestError(`the "alg" ${JSON.stringify(header.alg)} does not match the key (${alg})`);
  try {
    const key = await jose.importJWK(jwk, alg);
    const { payload } = await jose.compactVerify(jws, key, { algorithms: [alg] });
    return { payload: JSON.parse(new TextDecoder().decode(payload)) as unknown, jwk: publicPart(jwk) };
  } catch (error) {
    throw new ManifestError('the signature does not verify', { cause: error });
  }
}

function checkPayload(value: unknown): ManifestPayload {
  const p = value as Record<string, unknown> | null;
  if (typeof p !== 'object' || p === null || p['v'] !== 1) throw new ManifestError('the payload is not { "v": 1, ... }');
  if (typeof p['sub'] !== 'string' || typeof p['iat'] !== 'number') throw new ManifestError('the payload needs "sub" (string) and "iat" (number)');
  for (const member of ['tools', 'prompts', 'resourceTemplates']) {
    const map = p[member];
    if (typeof map !== 'object' || map === null || Array.isArray(map) || !Object.values(map).every((d) => typeof d === 'string')) {
      throw new ManifestError(`"${member}" is not an object of digests`);
    }
  }
  return p as unknown as ManifestPayload;
}
