/**
 * The target tables: every server and client the bench measures. Adding a target (the
 * gateway, a new SDK release, our `McpClient`) is one line here plus, when it needs one, a
 * small entry module in `targets/` or `clients/`.
 *
 * Entries are paths of compiled modules relative to `bench/.out/bench/` (the harness builds
 * `dist/` and compiles `bench/` with `tsc` first, so no loader runs in any measured process;
 * our targets import the package's published build through `switchboard/*`).
 *
 * @module
 */

/** `true` when supported, or the reason shown in the report when not. */
export type Support = true | string;

/**
 * A target that is a shipped command line, started by `lib/launch.ts`: our CLI's
 * `everything --http`, our CLI's `gateway` fronting a downstream floor, `supergateway`
 * fronting the stdio floor, or the forward floor (`targets/forwardFloor.ts`, a compiled entry
 * that needs a downstream floor started with it) fronting either floor.
 */
export interface CommandSpec {
  readonly launcher: 'everything' | 'gateway' | 'supergateway' | 'forward';
  /** What a gateway or the forward floor fronts: the stdio floor (default) or the HTTP floor. */
  readonly downstream?: 'stdio' | 'http';
  /**
   * The gateway's interceptor chain: `empty` (audit off, pins off, scanner off, no guards: the
   * routing alone) or `full` (audit with group commit, pins, the scanner, every guard; see
   * `lib/launch.ts`), or `full-batch`: the full chain with the audit log's `batch` durability
   * (an answer goes out once its record is committed, before the sync); `default`: what the
   * gateway runs with no `switchboard` settings but the console off (issue #35's "default
   * chain"), `default-batch` the same with `batch` durability. Default `empty`.
   */
  readonly chain?: 'empty' | 'full' | 'full-batch' | 'default' | 'default-batch';
  /** The web console on (`switchboard.console`), with one signed-in page holding its events stream open. Default off. */
  readonly console?: boolean;
}

/** How a target serves Streamable HTTP (`--mode stateless|session` on its command line). */
export interface HttpSpec {
  /** A compiled entry, or a shipped command line. */
  readonly entry: string | CommandSpec;
  /** 2026-07-28 without a session. Default true. */
  readonly stateless?: Support;
  /** 2025-11-25 with `Mcp-Session-Id`. Default true. */
  readonly session?: Support;
  /** The `tools/list` with 1,000 tools and the idle-sessions cells (compiled entries only). Default true. */
  readonly listAndSessions?: Support;
}

/** How a target serves stdio. */
export interface StdioSpec {
  /** A compiled entry, or a full command line (`[program, ...args]`). */
  readonly entry: string | readonly string[];
  /** `modern` = `_meta` on each request; `legacy` = initialize handshake; `none` = answers any line. */
  readonly wire: 'modern' | 'legacy' | 'none';
  /** Only measured for cold start (the bare `node -e` baseline). */
  readonly coldStartOnly?: boolean;
}

/** A server under test. */
export interface ServerTarget {
  readonly id: string;
  readonly label: string;
  readonly http?: HttpSpec;
  readonly stdio?: StdioSpec;
}

/** A client library under test (module default-exports a `ConnectClient`, see `clients/types.ts`). */
export interface ClientTarget {
  readonly id: string;
  readonly label: string;
  readonly module: string;
  /** Only these transports (default both). */
  readonly transports?: readonly ('http' | 'stdio')[];
}

/** The id ratios "to the floor" use, per section. */
export const FLOOR = 'floor';
/** The bare `node -e` cold-start baseline. */
export const BARE = 'bare';
/** The id ratios "to the SDK" use. */
export const SDK = 'sdk2';
/** The id of our implementation (the one the issue's targets apply to). */
export const OURS = 'ours';
/** The id of our gateway, empty chain, fronting the stdio floor (the gateway targets' ratios use {@link OURS} as the direct server). */
export const GATEWAY_STDIO = 'gw-stdio';
/** The id of our gateway, empty chain, fronting the HTTP floor. */
export const GATEWAY_HTTP = 'gw-http';
/** The id of our gateway with the full chain fronting the stdio floor (its ratios use {@link GATEWAY_STDIO}: what the decisions cost). */
export const GATEWAY_FULL = 'gw-full';
/**
 * The id of our gateway with the full chain and the audit log's `batch` durability (its ratios
 * use {@link GATEWAY_STDIO}): a record survives the gateway being killed (issue #13's SIGKILL
 * test), not a power loss in the window of one sync.
 */
export const GATEWAY_FULL_BATCH = 'gw-full-batch';
/** The id of our gateway with the default chain (issue #35: audit `sync`, pins, scanner, sanitiser, the built-in checks and policy) fronting the stdio floor. */
export const GATEWAY_DEFAULT = 'gw-default';
/** The default chain fronting the HTTP floor. */
export const GATEWAY_DEFAULT_HTTP = 'gw-default-http';
/** The default chain with the audit log's `batch` durability, fronting the stdio floor. */
export const GATEWAY_DEFAULT_BATCH = 'gw-default-batch';
/** The id of our gateway, empty chain, with the web console on and one open events stream (its ratios use {@link GATEWAY_STDIO}: the MCP path with the console on). */
export const GATEWAY_CONSOLE = 'gw-console';
/** The anchor gateway: `supergateway` fronting the stdio floor. */
export const SUPERGATEWAY = 'supergw';
/** Our shipped `switchboard everything --http` (compared with the lean {@link OURS} server). */
export const EVERYTHING = 'everything';
/** The forward floor fronting the stdio floor: the least a Node process does to forward a call (the stdio gateway rows' "vs forward floor" ratios use it). */
export const FORWARD_STDIO = 'fwd-stdio';
/** The forward floor fronting the HTTP floor (the {@link GATEWAY_HTTP} row's "vs forward floor" ratios use it). */
export const FORWARD_HTTP = 'fwd-http';
/** The ids of the gateways (the report's gateway table). */
export const FRONTS = [FORWARD_STDIO, FORWARD_HTTP, GATEWAY_STDIO, GATEWAY_HTTP, GATEWAY_DEFAULT, GATEWAY_DEFAULT_HTTP, GATEWAY_DEFAULT_BATCH, GATEWAY_FULL, GATEWAY_FULL_BATCH, GATEWAY_CONSOLE, SUPERGATEWAY] as const;

/** The client floor. */
export const RAW_CLIENT = 'raw';

/** Answers one line (any request) with an empty tools/list result, then waits for stdin to end. */
const bareScript =
  "process.stdin.once('data',d=>process.stdout.write(JSON.stringify({jsonrpc:'2.0',id:JSON.parse(d).id,result:{tools:[]}})+'\\n'))";

/** The servers, in report order. */
export const serverTargets: readonly ServerTarget[] = [
  { id: FLOOR, label: 'floor (raw node:http / readline)', http: { entry: 'targets/floorHttp.js' }, stdio: { entry: 'targets/floorStdio.js', wire: 'modern' } },
  { id: OURS, label: 'Switchboard', http: { entry: 'targets/oursHttp.js' }, stdio: { entry: 'targets/oursStdio.js', wire: 'modern' } },
  { id: 'sdk2', label: 'SDK v2 @modelcontextprotocol/server', http: { entry: 'targets/sdk2Http.js' }, stdio: { entry: 'targets/sdk2Stdio.js', wire: 'modern' } },
  { id: 'sdk1', label: 'SDK v1 @modelcontextprotocol/sdk', http: { entry: 'targets/sdk1Http.js', stateless: 'n/a (v1 has no 2026-07-28 wire)' }, stdio: { entry: 'targets/sdk1Stdio.js', wire: 'legacy' } },
  { id: EVERYTHING, label: 'Switchboard `everything --http` (shipped CLI)', http: { entry: { launcher: 'everything' }, listAndSessions: 'n/a (fixed tool set)' } },
  { id: FORWARD_STDIO, label: 'forward floor (raw node:http → stdio floor)', http: { entry: { launcher: 'forward', downstream: 'stdio' }, listAndSessions: 'n/a (forward floor)' } },
  { id: FORWARD_HTTP, label: 'forward floor (raw node:http → raw node:net → HTTP floor)', http: { entry: { launcher: 'forward', downstream: 'http' }, listAndSessions: 'n/a (forward floor)' } },
  { id: GATEWAY_STDIO, label: 'Switchboard gateway, empty chain → stdio floor', http: { entry: { launcher: 'gateway', downstream: 'stdio', chain: 'empty' }, listAndSessions: 'n/a (gateway)' } },
  { id: GATEWAY_HTTP, label: 'Switchboard gateway, empty chain → HTTP floor', http: { entry: { launcher: 'gateway', downstream: 'http', chain: 'empty' }, listAndSessions: 'n/a (gateway)' } },
  { id: GATEWAY_DEFAULT, label: 'Switchboard gateway, default chain → stdio floor', http: { entry: { launcher: 'gateway', downstream: 'stdio', chain: 'default' }, listAndSessions: 'n/a (gateway)' } },
  { id: GATEWAY_DEFAULT_HTTP, label: 'Switchboard gateway, default chain → HTTP floor', http: { entry: { launcher: 'gateway', downstream: 'http', chain: 'default' }, listAndSessions: 'n/a (gateway)' } },
  { id: GATEWAY_DEFAULT_BATCH, label: 'Switchboard gateway, default chain, audit durability `batch` → stdio floor', http: { entry: { launcher: 'gateway', downstream: 'stdio', chain: 'default-batch' }, listAndSessions: 'n/a (gateway)' } },
  { id: GATEWAY_FULL, label: 'Switchboard gateway, full chain → stdio floor', http: { entry: { launcher: 'gateway', downstream: 'stdio', chain: 'full' }, listAndSessions: 'n/a (gateway)' } },
  { id: GATEWAY_FULL_BATCH, label: 'Switchboard gateway, full chain, audit durability `batch` → stdio floor', http: { entry: { launcher: 'gateway', downstream: 'stdio', chain: 'full-batch' }, listAndSessions: 'n/a (gateway)' } },
  { id: GATEWAY_CONSOLE, label: 'Switchboard gateway, empty chain + console (one open events stream) → stdio floor', http: { entry: { launcher: 'gateway', downstream: 'stdio', chain: 'empty', console: true }, listAndSessions: 'n/a (gateway)' } },
  { id: SUPERGATEWAY, label: 'supergateway → stdio floor', http: { entry: { launcher: 'supergateway' }, listAndSessions: 'n/a (gateway)' } },
  { id: BARE, label: 'bare `node -e` (answers one line)', stdio: { entry: ['node', '-e', bareScript], wire: 'none', coldStartOnly: true } },
];

/** The clients, driven against the floor server. */
export const clientTargets: readonly ClientTarget[] = [
  { id: RAW_CLIENT, label: 'raw (bench wire, no library)', module: 'clients/raw.js' },
  { id: OURS, label: 'Switchboard McpClient (global fetch)', module: 'clients/ours.js' },
  { id: 'ours-node', label: 'Switchboard McpClient + nodeFetch', module: 'clients/oursNode.js', transports: ['http'] },
  { id: 'sdk2', label: 'SDK v2 Client (@modelcontextprotocol/client)', module: 'clients/sdk2.js' },
  { id: 'sdk1', label: 'SDK v1 Client (@modelcontextprotocol/sdk)', module: 'clients/sdk1.js' },
];
