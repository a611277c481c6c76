/**
 * What the host needs to know to run one downstream server: how to reach it and its limits.
 * The config loader (`config.ts`) produces these from `switchboard.json`; an application
 * embedding the host may build them directly.
 *
 * @module
 */

/** How to reach a server: a command to spawn (stdio) or a URL (Streamable HTTP, or the legacy HTTP+SSE transport). */
export type Launch =
  | {
      readonly kind: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      /** Variables set for the child on top of the host's harmless defaults (PATH, HOME, ...). */
      readonly env: Readonly<Record<string, string>>;
      readonly cwd?: string;
    }
  | {
      /** `http`: Streamable HTTP; `sse`: the deprecated 2024-11-05 HTTP+SSE transport. */
      readonly kind: 'http' | 'sse';
      readonly url: string;
      /** Static headers sent with every request (the server's own credentials, never the upstream's). */
      readonly headers: Readonly<Record<string, string>>;
    };

/** One downstream server. */
export interface DownstreamSpec {
  /** The server id: `^[A-Za-z0-9_-]{1,32}$`, used as its namespace prefix. */
  readonly id: string;
  readonly launch: Launch;
  /** Per-request timeout in ms. */
  readonly timeoutMs: number;
  /** Requests in flight to this server at once. */
  readonly maxConcurrency: number;
  /** Which era to speak: probe (`auto`) or force one. */
  readonly era: 'auto' | 'stateless' | 'stateful';
  /** Tool allow and deny lists (globs with `*` and `?`); deny wins. */
  readonly tools?: { readonly allow?: readonly string[]; readonly deny?: readonly string[] };
}

/** The defaults of {@link DownstreamSpec}'s limits. */
export const DEFAULT_TIMEOUT_MS = 60_000;
/** Default of {@link DownstreamSpec.maxConcurrency}. */
export const DEFAULT_MAX_CONCURRENCY = 16;
