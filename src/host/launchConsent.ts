/**
 * Consent before the host starts a local (stdio) server: a config file, or whoever can edit
 * it, decides what program runs with the user's rights, so the user approves each exact launch.
 *
 * A launch is approved when its keyed approval ({@link launchApproval} in `launchKeys.ts`: an
 * HMAC under the state store's key over the command, arguments, working directory and env
 * names and values as written) equals the one recorded in a {@link LaunchApprovalStore};
 * otherwise `--yes` or an interactive prompt records it, and without either
 * {@link checkLaunch} throws {@link LaunchNotApprovedError}. Any change to the command, an
 * argument, the working directory, an env name or an env value written in the config needs
 * new consent (a "rug pull" after approval is refused). A config file cannot approve its own
 * launches: `switchboard.approvedLaunches` is ignored (the config reader warns).
 *
 * The launch's packages are checked first (`launchSupplyChain.ts`). A package flagged as
 * imitating a well-known server package (typosquat, confusable) makes the launch need a
 * person's approval that shows the flag: `--yes` does not give it, the terminal prompt and the
 * console's Review page (with its acknowledgement) do, and the approval is keyed over the flags
 * acknowledged, so no approval given without the warning admits it. An unpinned package is a
 * warning, shown in the prompt and told to {@link AdmitOptions.warned}; it stops nothing.
 *
 * {@link launchDigest} is the older, unkeyed digest over env NAMES; it names a server's
 * identity for the pins (`pins/serverIdentity.ts`), never an approval.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8785
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/security_best_practices#local-mcp-server-compromise
 * @module
 */
import { canonicalJson } from '../server/requestState.js';
import { McpError, McpErrorCode } from '../util/errors.js';
import { sha256Hex } from '../util/sha256.js';
import type { HostConfig, ServerConfig } from './configTypes.js';
import { launchApproval } from './launchKeys.js';
import { acknowledgedFlags, launchFindings, type LaunchFinding } from './launchSupplyChain.js';

/** What the user approves: the exact process a stdio server entry starts. */
export interface LaunchSpec {
  readonly command: string;
  readonly args: readonly string[];
  /** Absolute working directory, or `null` when the child inherits the host's. */
  readonly cwd: string | null;
  /** Names of the extra environment variables, sorted; never their values. */
  readonly env: readonly string[];
}

/** Where approvals persist (implemented in `store/`; in memory by `MemoryLaunchApprovalStore`). */
export interface LaunchApprovalStore {
  /** The approved keyed digest for `serverId`, if any. */
  get(serverId: string): Promise<string | undefined>;
  /** Records `digest` (a keyed approval) as approved for `serverId`. */
  set(serverId: string, digest: string): Promise<void>;
}

/** The launch spec of a stdio server, or `undefined` for a remote one (nothing is started). */
export function launchSpecOf(server: ServerConfig): LaunchSpec | undefined {
  const launch = server.launch;
  if (launch.kind !== 'stdio') return undefined;
  return { command: launch.command, args: [...launch.args], cwd: launch.cwd ?? null, env: Object.keys(launch.env).sort() };
}

/** `sha256:` + hex SHA-256 of the RFC 8785 canonical JSON of `spec` (env names sorted first): an identity, not an approval (see the module comment). */
export function launchDigest(spec: LaunchSpec): string {
  const canonical = canonicalJson({ command: spec.command, args: spec.args, cwd: spec.cwd, env: [...spec.env].sort() });
  return `sha256:${sha256Hex(canonical)}`;
}

/**
 * The folder a launch starts in, for a person: its `cwd`, else `inheritedCwd` (the working
 * folder of the process that starts it: a child without `cwd` inherits it), else a note that
 * the MCP client that starts the gateway chooses it (`wrap` asks before any gateway runs).
 */
export function launchFolder(spec: LaunchSpec, inheritedCwd?: string): string {
  if (spec.cwd !== null) return quote(spec.cwd);
  return inheritedCwd !== undefined ? `${quote(inheritedCwd)} (not set in the config: the gateway's own)` : "(not set in the config: the gateway's own, wherever the MCP client starts it)";
}

/**
 * A multi-line description of the launch for a consent prompt: the exact command, every
 * argument on its own line, the working directory ({@link launchFolder}: where it will really
 * start) and the env var names (never values). Strings are quoted with everything outside
 * printable ASCII escaped, so control characters and bidirectional overrides cannot disguise
 * what runs.
 */
export function describeLaunch(spec: LaunchSpec, inheritedCwd?: string): string {
  const lines = [`  command: ${quote(spec.command)}`];
  if (spec.args.length === 0) lines.push('  arguments: (none)');
  else {
    lines.push('  arguments:');
    spec.args.forEach((arg, i) => lines.push(`    [${i}] ${quote(arg)}`));
  }
  lines.push(`  working directory: ${launchFolder(spec, inheritedCwd)}`);
  lines.push(`  environment variables set: ${spec.env.length === 0 ? '(none)' : [...spec.env].sort().map(quote).join(', ')} (values not shown)`);
  return lines.join('\n');
}

/** A stdio server's launch was not approved; the message shows it and how to approve. */
export class LaunchNotApprovedError extends McpError {
  readonly serverId: string;
  /** The keyed approval a person's approval records. */
  readonly digest: string;
  /** True when a different launch of this server was approved before (it changed). */
  readonly changed: boolean;
  /** The supply-chain findings on the launch (`launchSupplyChain.ts`); a flag among them means `--yes` cannot approve it. */
  readonly findings: readonly LaunchFinding[];

  constructor(serverId: string, spec: LaunchSpec, digest: string, reason: { changed: boolean; declined: boolean }, findings: readonly LaunchFinding[] = [], inheritedCwd?: string) {
    const flagged = findings.some((f) => f.severity === 'flag');
    const why = reason.declined ? 'was declined' : flagged ? 'is flagged and needs a person\'s approval' : reason.changed ? 'changed since it was approved and needs new consent' : 'has not been approved';
    super(
      McpErrorCode.LaunchNotApproved,
      [
        `The launch of server "${serverId}" ${why}. It would run:`,
        describeLaunch(spec, inheritedCwd),
        ...describeFindings(findings),
        flagged
          ? 'To approve it, start the gateway (or switchboard scan) in a terminal and answer the prompt, or approve it on the console\'s Review page, acknowledging the warning; --yes does not approve a flagged launch (a config file cannot approve its own launches).'
          : 'To approve it, start the gateway in a terminal and answer the prompt, run it once with --yes, or approve it on the console\'s Review page (a config file cannot approve its own launches).',
      ].join('\n'),
    );
    this.serverId = serverId;
    this.digest = digest;
    this.changed = reason.changed;
    this.findings = findings;
  }
}

/** Arguments of {@link checkLaunch}. */
export interface CheckLaunchOptions {
  readonly serverId: string;
  readonly spec: LaunchSpec;
  /** The launch's keyed approval ({@link launchApproval}). */
  readonly digest: string;
  readonly store: LaunchApprovalStore;
  /** Approve without asking (`--yes`): the approval is recorded in `store`. */
  readonly yes: boolean;
  /** Asks the user (the text holds {@link describeLaunch}); true = approve and record. */
  readonly prompt?: (text: string) => Promise<boolean>;
  /** The launch's supply-chain findings: shown in the prompt; with a flag among them, `yes` does not approve. */
  readonly findings?: readonly LaunchFinding[];
  /** The working folder of the process that will start the server (shown when the launch sets no `cwd`). */
  readonly inheritedCwd?: string;
}

/**
 * Resolves `'approved'` when the store already approves this exact launch,
 * `'approved-now'` when `yes` or `prompt` approved it now (recorded in `store`); otherwise
 * throws {@link LaunchNotApprovedError}.
 */
export async function checkLaunch(options: CheckLaunchOptions): Promise<'approved' | 'approved-now'> {
  const { serverId, spec, store, digest, inheritedCwd } = options;
  const findings = options.findings ?? [];
  const stored = await store.get(serverId);
  if (stored === digest) return 'approved';
  const changed = stored !== undefined;
  // A flagged launch is approved only by a person who was shown the flag.
  let approve = options.yes && !findings.some((f) => f.severity === 'flag');
  if (!approve && options.prompt !== undefined) {
    const text = [`Server "${serverId}" wants to start a local process${changed ? ' (its launch changed since it was approved)' : ''}:`, describeLaunch(spec, inheritedCwd), ...describeFindings(findings), 'Allow it?'].join('\n');
    approve = (await options.prompt(text)) === true;
    if (!approve) throw new LaunchNotApprovedError(serverId, spec, digest, { changed, declined: true }, findings, inheritedCwd);
  }
  if (!approve) throw new LaunchNotApprovedError(serverId, spec, digest, { changed, declined: false }, findings, inheritedCwd);
  await store.set(serverId, digest);
  return 'approved-now';
}

/** How {@link admitLaunches} decides: the store of approvals and its key, `--yes`, the terminal prompt. */
export interface AdmitOptions {
  readonly store: LaunchApprovalStore;
  /** The approval key of the state store (`launchKeys.ts`). */
  readonly key: string;
  readonly yes: boolean;
  readonly prompt?: (text: string) => Promise<boolean>;
  /** The working folder of the process that will start the servers ({@link CheckLaunchOptions.inheritedCwd}). */
  readonly inheritedCwd?: string;
  /** Told of each launch that was not approved (its error says how to approve it). */
  readonly refused?: (server: ServerConfig, error: unknown) => void;
  /** Told of each server admitted. */
  readonly admitted?: (server: ServerConfig) => void;
  /** Told of the supply-chain findings of each admitted launch that has any (`launchSupplyChain.ts`); a refused launch's error carries its own. */
  readonly warned?: (server: ServerConfig, findings: readonly LaunchFinding[]) => void;
}

/** The servers of `config` that may start: enabled, and each stdio launch approved ({@link checkLaunch}). */
export async function admitLaunches(config: Pick<HostConfig, 'servers'>, options: AdmitOptions): Promise<ServerConfig[]> {
  const allowed: ServerConfig[] = [];
  for (const server of config.servers) {
    if (server.disabled) continue;
    const spec = launchSpecOf(server);
    const findings = spec !== undefined ? launchFindings(spec.command, spec.args) : [];
    const digest = launchApproval(options.key, server, acknowledgedFlags(findings));
    if (spec !== undefined && digest !== undefined) {
      try {
        await checkLaunch({ serverId: server.id, spec, digest, store: options.store, yes: options.yes, findings, ...(options.prompt !== undefined ? { prompt: options.prompt } : {}), ...(options.inheritedCwd !== undefined ? { inheritedCwd: options.inheritedCwd } : {}) });
      } catch (error) {
        options.refused?.(server, error);
        continue;
      }
    }
    if (findings.length > 0) options.warned?.(server, findings);
    options.admitted?.(server);
    allowed.push(server);
  }
  return allowed;
}

/** The lines that show `findings` to a person: flags first, each with what it imitates; then warnings with their fix. */
export function describeFindings(findings: readonly LaunchFinding[]): string[] {
  const ordered = [...findings.filter((f) => f.severity === 'flag'), ...findings.filter((f) => f.severity === 'warn')];
  return ordered.map((f) => `  ${f.severity === 'flag' ? `WARNING (${f.kind})` : 'note (unpinned)'}: ${quoteUnsafe(f.message)}`);
}

/** `text` with everything outside printable ASCII escaped (no quotes added): a finding names the package as written. */
function quoteUnsafe(text: string): string {
  return quote(text).slice(1, -1).replace(/\\"/g, '"');
}

/** `text` in double quotes with `"`, `\` and every character outside printable ASCII escaped. */
function quote(text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0) as number;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (code >= 0x20 && code <= 0x7e) out += ch;
    else out += code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
  }
  return `${out}"`;
}
