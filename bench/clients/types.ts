/**
 * The contract a client-side bench adapter implements: connect to the floor server over HTTP
 * or stdio, then call `echo` as fast as asked. One module per client library
 * (`clients/<id>.ts`, default-exporting a {@link ConnectClient}), listed in the client table.
 *
 * @module
 */

/** Where the floor server is. For stdio the client spawns `command args` itself. */
export type ClientEndpoint = { readonly kind: 'http'; readonly url: string } | { readonly kind: 'stdio'; readonly command: string; readonly args: readonly string[] };

/** A connected client. */
export interface BenchClient {
  /** Calls `echo` with `hello`; rejects unless the answer is the text `hello`. */
  callEcho(): Promise<void>;
  close(): Promise<void>;
}

/** Connects a client; `concurrency` is how many calls will be in flight at once. */
export type ConnectClient = (endpoint: ClientEndpoint, concurrency: number) => Promise<BenchClient>;

/** Throws unless a `CallToolResult`-shaped value carries the text `hello`. */
export function expectHello(result: unknown): void {
  const first = (result as { content?: { type?: string; text?: string }[] } | undefined)?.content?.[0];
  if (first?.type !== 'text' || first.text !== 'hello') throw new Error(`unexpected tool result: ${JSON.stringify(result).slice(0, 200)}`);
}
