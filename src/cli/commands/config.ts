/**
 * `switchboard config pending | approve [--config FILE] [--state-dir DIR] [--yes]`: the person's
 * channel for a reloaded config the running gateway holds back because it weakens security
 * (`host/configReload.ts`). `pending` prints what waits (each weakening change, the file, the
 * digest); `approve` shows it, asks (or takes `--yes`), and records the approval in the state
 * folder, which the gateway watches: it then applies that exact config (and records the launches
 * it adds as approved). An approval names the digest it was shown; a config written after it
 * waits again. No MCP tool can do any of this: the state folder is not the servers'.
 *
 * @module
 */
import { resolve as resolvePath } from 'node:path';
import type { PendingConfig } from '../../host/configReload.js';
import { JsonFileConfigApprovalStore } from '../../store/configApprovalFiles.js';
import { isMcpError } from '../../util/errors.js';
import { CliFailure, UsageError } from '../args.js';
import { loadConfig } from '../hostSetup.js';
import { defineCommand, type ParsedCommand } from '../command.js';
import { askYesNo } from '../consentTerminal.js';

/** `switchboard config`. */
export const command = defineCommand({
  name: 'config',
  summary: 'review a reloaded config the gateway holds back: pending | approve',
  usage: ['<pending|approve> [--config FILE] [--state-dir DIR] [--yes]'],
  description: `A running gateway applies a changed config file at once only when the change
tightens security. A change that weakens it (a control turned off or down, a
policy rule removed or loosened, a server added, a launch, env value or URL
changed) is held: the gateway keeps running the config it had and says so.
Approve it here (or on the console's Review page) to apply it.`,
  positionals: [
    { name: 'pending', description: 'show the config that waits: its file, digest and each weakening change' },
    { name: 'approve', description: 'approve it (after showing it and asking; --yes to skip the question): the running gateway applies it within a second' },
  ],
  options: {
    config: { type: 'string', value: 'FILE', description: "the gateway's config; its stateDir holds the pending config", default: './switchboard.json' },
    'state-dir': { type: 'string', value: 'DIR', description: "the gateway's state folder, when the changed config moves it (then the config's own stateDir is not the running gateway's)" },
    yes: { type: 'boolean', description: 'approve without asking' },
  },
  notes: 'Exit status: 0 done; 1 nothing waits, or the approval was declined.',
  run: runConfig,
});

async function runConfig({ options, positionals }: ParsedCommand): Promise<number | void> {
  const [action, ...extra] = positionals;
  if (action !== 'pending' && action !== 'approve') throw new UsageError(action === undefined ? 'which action: pending or approve?' : `unknown action ${JSON.stringify(action)}`);
  if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
  const stateDir = typeof options['state-dir'] === 'string' ? resolvePath(options['state-dir']) : (await loadConfig(resolvePath(typeof options['config'] === 'string' ? options['config'] : 'switchboard.json'))).stateDir;
  const store = new JsonFileConfigApprovalStore(stateDir);
  let pending: PendingConfig | undefined;
  try {
    pending = await store.pending();
  } catch (error) {
    if (isMcpError(error)) throw new CliFailure(error.message);
    throw error;
  }
  if (pending === undefined) {
    process.stdout.write(`No reloaded config waits for approval (state folder ${stateDir}).\n`);
    return 1;
  }
  process.stdout.write(describePending(pending));
  if (action === 'pending') return;
  if (options['yes'] !== true) {
    if (process.stdin.isTTY !== true) throw new UsageError('not a terminal: review the changes above and pass --yes to approve them');
    if (!(await askYesNo('Apply this config?'))) {
      process.stdout.write('Not approved; the gateway keeps running the config it had.\n');
      return 1;
    }
  }
  await store.approve(pending.digest);
  process.stdout.write(`Approved ${pending.digest}; the running gateway applies it now.\n`);
}

/** The pending config for a person: file, when, digest, each change. */
export function describePending(pending: PendingConfig): string {
  return [
    `The gateway holds back ${pending.file} (read ${new Date(pending.at).toISOString()}), which weakens security:`,
    ...pending.changes.map((c) => `  - ${c.reason}  [${c.path}]`),
    `digest: ${pending.digest}`,
    '',
  ].join('\n');
}
