/**
 * The neutral shape every client format parses into, the gateway entry written on wrap, and
 * the error a malformed client file raises.
 *
 * @module
 */
import { McpError, McpErrorCode } from '../../util/errors.js';

/** A server started as a child process (stdio). */
export interface StdioServerEntry {
  readonly command: string;
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  readonly disabled?: boolean;
}

/** A remote server reached over HTTP: Streamable HTTP or the legacy HTTP+SSE transport. */
export interface RemoteServerEntry {
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly type: 'http' | 'sse';
  readonly disabled?: boolean;
}

/** One server as Switchboard's `mcpServers` would hold it (values use `${env:NAME}`). */
export type ServerEntry = StdioServerEntry | RemoteServerEntry;

/** A server read from a client's config, with what the conversion had to say about it. */
export interface ImportedServer {
  /** The client's own name for the server (not yet checked against Switchboard's id rule). */
  readonly id: string;
  readonly entry: ServerEntry;
  /** Human-readable remarks: dropped options, rewritten variables, inputs to set. */
  readonly notes: readonly string[];
}

/** What parsing a client's config found. */
export interface ClientServers {
  readonly servers: readonly ImportedServer[];
  /** Entries that could not be imported, each with the reason. */
  readonly skipped: readonly string[];
  /** True when the server section is (or contains) the Switchboard gateway entry. */
  readonly wrapped: boolean;
}

/** How the client should start the gateway: an absolute command and its arguments. */
export interface GatewayLaunch {
  readonly command: string;
  readonly args: readonly string[];
  /** Variables the gateway process gets (the servers' secrets, referred to as `${env:NAME}` in switchboard.json); none when empty. */
  readonly env?: Readonly<Record<string, string>>;
}

/** The gateway entry's `command`, `args` and (when there are any) `env`, as most formats spell them. */
export function launchFields(launch: GatewayLaunch): { command: string; args: readonly string[]; env?: Readonly<Record<string, string>> } {
  return { command: launch.command, args: launch.args, ...(launch.env !== undefined && Object.keys(launch.env).length > 0 ? { env: launch.env } : {}) };
}

/** Context some formats need to resolve their variables (`${workspaceFolder}`, `${userHome}`). */
export interface ParseContext {
  /** The project folder the config belongs to, when it is a project config. */
  readonly projectDir?: string;
  /** The user's home folder. */
  readonly home?: string;
}

/** The result of a text edit: the new text and whether anything changed. */
export interface EditResult {
  readonly text: string;
  readonly changed: boolean;
}

/** A client config format: parse servers out, and swap the server section for the gateway. */
export interface ClientFormat {
  /** Parses the servers. Throws {@link ClientConfigError} on malformed text. */
  readonly parse: (text: string, file: string, context?: ParseContext) => ClientServers;
  /** Replaces the server section with the one `switchboard` entry; a no-op when already wrapped. */
  readonly wrap: (text: string, file: string, launch: GatewayLaunch) => EditResult;
  /**
   * Puts back the server section of `backup` (the file as it was before wrap), keeping every
   * other edit made to `text` since; a no-op when `text` is not wrapped.
   */
  readonly unwrap: (text: string, file: string, backup: string) => EditResult;
}

/** The name of the one entry wrap leaves in a client's server list. */
export const GATEWAY_ENTRY_ID = 'switchboard';

/** A client config file that cannot be read or edited: names the file and the position. */
export class ClientConfigError extends McpError {
  /** The file (as given to the parser). */
  readonly file: string;
  /** 1-based line and column of the problem, when known. */
  readonly line: number | undefined;
  readonly column: number | undefined;

  constructor(file: string, message: string, position?: { line: number; column: number }, options?: { cause?: unknown }) {
    super(McpErrorCode.InvalidArgument, `${file}${position === undefined ? '' : `:${position.line}:${position.column}`}: ${message}`, options);
    this.file = file;
    this.line = position?.line;
    this.column = position?.column;
  }
}

/** 1-based line and column of `offset` in `text`. */
export function positionOf(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: offset - start + 1 };
}

/** True when `value` is a plain object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
