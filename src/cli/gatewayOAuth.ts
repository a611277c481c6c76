/**
 * OAuth mode of the gateway (`switchboard.gateway.auth: { "oauth": { … } }`): the gateway is an
 * OAuth 2.1 resource server behind the configured authorization server, built from the
 * resource-server layer (`auth/resource`): a bearer verifier (JWT signature from the issuer's
 * JWKS, byte-exact issuer, audience, expiry, `alg: none` and algorithm confusion refused), the
 * Protected Resource Metadata (RFC 9728) naming the issuer, and `WWW-Authenticate` challenges
 * pointing at it.
 *
 * The resource (the PRM `resource` and the default audience) is the configured `audience` when
 * it is a URL, else the gateway's endpoint under `gateway.publicUrl` (behind a proxy), else under
 * its listening address;
 * tokens must name the configured `audience` either way (RFC 8707: a token minted for another
 * resource is refused). Without `jwksUri`, the key set URL comes from the issuer's RFC 8414
 * metadata, fetched once at start (the gateway does not start when it cannot be read).
 *
 * With `dpop` (RFC 9449), `Authorization: DPoP` tokens bound to a key (`cnf.jkt`) are accepted
 * with a proof of that key on every request (`dpop.required`: only those), and the metadata says
 * so. Each proof's `jti` is remembered in the replay cache until the proof is stale anyway, and
 * with `dpop.nonce` proofs must carry a nonce the gateway handed out. Both are in this process by
 * default; with `--cache redis://` they are in Redis, shared by every instance, so a proof used
 * on one instance is a replay on all the others, and a nonce from one is good at all. When Redis
 * cannot be reached, DPoP requests are refused with 503 (fail closed) and the cause is logged.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#token-audience-binding-and-validation
 * @module
 */
import { discoverAuthorizationServer } from '../auth/client/discovery.js';
import { allowInsecureRequests, defaultFetch, type FetchLike } from '../auth/http.js';
import { createBearerVerifier } from '../auth/resource/bearerVerifier.js';
import { createDpopNonceSource, type DpopNonceSource, type DpopReplayCache } from '../auth/resource/dpopProof.js';
import { protectedResourceMetadata } from '../auth/resource/protectedResourceMetadata.js';
import type { GatewayDpopConfig } from '../host/configTypes.js';
import { isLoopbackHttp } from '../host/canonicalServerUrl.js';
import type { HttpAuthOptions } from '../transport/http/server/auth.js';
import { describeError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { CliFailure } from './args.js';

/** The gateway's DPoP settings: the config's, plus the shared stores (`--cache`) when there are. */
export interface GatewayDpopOptions extends GatewayDpopConfig {
  /** Where proof `jti`s are remembered; default: this process (one instance only). */
  readonly replayCache?: DpopReplayCache;
  /** Where nonces come from when `nonce` is set; default: this process (one instance only). */
  readonly nonces?: DpopNonceSource;
}

/** The gateway's OAuth settings (from the config, plus test seams). */
export interface GatewayOAuthOptions {
  /** The authorization server's issuer identifier (byte-exact). */
  readonly issuer: string;
  /** The audience tokens must name: the gateway's canonical URL. */
  readonly audience: string;
  /** The issuer's JWKS URL; default: its metadata's `jwks_uri`. */
  readonly jwksUri: string | undefined;
  /** The `fetch` for metadata and keys. */
  readonly fetch?: FetchLike;
  /** The clock (tests). */
  readonly now?: () => number;
  /** Accept DPoP-bound tokens too (RFC 9449). Default: bearer tokens only. */
  readonly dpop?: GatewayDpopOptions | undefined;
  /**
   * Keep each caller's verified token for RFC 8693 exchange (`subjectTokenOf`): set when a server
   * has `auth` mode `token-exchange`. Default: kept nowhere.
   */
  readonly exchangeable?: boolean;
}

/** Builds the Streamable HTTP handler's `auth` option for the gateway served at `endpoint`. */
export async function gatewayResourceAuth(options: GatewayOAuthOptions, endpoint: string, logger?: Logger): Promise<HttpAuthOptions> {
  const resource = URL.canParse(options.audience) && /^https?:$/.test(new URL(options.audience).protocol) ? options.audience : endpoint;
  // Plain http is tolerated only for loopback URLs (the config refuses it elsewhere): development.
  const insecure = { [allowInsecureRequests]: [options.issuer, resource, options.jwksUri].some((url) => url !== undefined && isLoopbackHttp(url)) };
  let jwksUri = options.jwksUri;
  if (jwksUri === undefined) {
    try {
      const metadata = await discoverAuthorizationServer(options.issuer, { ...insecure, fetch: options.fetch ?? defaultFetch(), requirePkce: false });
      jwksUri = metadata.jwks_uri;
    } catch (error) {
      throw new CliFailure(`gateway.auth.oauth: cannot read the metadata of issuer ${options.issuer}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    if (jwksUri === undefined) throw new CliFailure(`gateway.auth.oauth: issuer ${options.issuer} publishes no jwks_uri; set gateway.auth.oauth.jwksUri`);
  }
  const verifier = createBearerVerifier({
    resource,
    audience: options.audience,
    issuers: [options.issuer],
    jwks: { url: jwksUri, ...(options.fetch !== undefined ? { fetch: options.fetch } : {}) },
    ...(options.now !== undefined ? { now: options.now } : {}),
    ...(options.dpop !== undefined ? { dpop: verifierDpop(options.dpop, options.now, logger) } : {}),
    ...(options.exchangeable === true ? { exchangeable: true } : {}),
    ...insecure,
  });
  const resourceMetadata = protectedResourceMetadata({
    resource,
    authorizationServers: [options.issuer],
    resourceName: 'Switchboard gateway',
    ...(verifier.dpop !== undefined ? { dpopSigningAlgValuesSupported: verifier.dpop.algorithms, dpopBoundAccessTokensRequired: verifier.dpop.required } : {}),
    ...insecure,
  });
  return { verifier, resourceMetadata };
}

/** The verifier's `dpop` option: the stores given (or this process's), their failures logged. */
function verifierDpop(dpop: GatewayDpopOptions, now: (() => number) | undefined, logger: Logger | undefined) {
  // A store failure refuses the request (503, in the verifier); the operator needs the cause.
  const logged = async <T>(what: string, run: () => T | Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      logger?.error(`DPoP ${what} failed, request refused: ${describeError(error)}`);
      throw error;
    }
  };
  const replayCache = dpop.replayCache;
  const nonces = dpop.nonce ? (dpop.nonces ?? createDpopNonceSource(now !== undefined ? { now } : {})) : undefined;
  return {
    required: dpop.required,
    ...(replayCache !== undefined ? { replayCache: { remember: (key: string, expiresAt: number) => logged('replay check', () => replayCache.remember(key, expiresAt)) } } : {}),
    ...(nonces !== undefined ? { nonce: { current: () => logged('nonce', () => nonces.current()), accepts: (nonce: string) => logged('nonce check', () => nonces.accepts(nonce)) } } : {}),
  };
}
