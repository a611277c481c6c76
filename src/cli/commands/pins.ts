/**
 * `switchboard pins list | diff | approve | reject [server] [item]`: the person's channel for
 * the pins the gateway keeps in `<stateDir>/pins.db`. A running gateway notices the change
 * within a second and serves (or keeps withholding) the item. Each approval or rejection is
 * recorded in the gateway's audit log as `cli:<user>` (unless `switchboard.audit` is false).
 * No MCP tool can do any of this.
 *
 * @module
 */
import { userInfo } from 'node:os';
import type { AuditLog } from '../../host/audit.js';
import { decidePending, formatPinDiff, formatPinList, selectRecords } from '../../host/pins/pinReview.js';
import { SqliteAuditLog } from '../../store/sqliteAudit.js';
import { openPinStore } from '../../store/sqlitePinStore.js';
import { anchoredPins } from '../stateAnchors.js';
import { auditFile, auditStoreOptions } from '../auditFiles.js';
import type { PinStore } from '../../host/pins/pinStore.js';
import { openSharedStores } from '../sharedStores.js';
import { isMcpError } from '../../util/errors.js';
import { CliFailure, UsageError } from '../args.js';
import { configFileOption } from '../userFolder.js';
import { loadConfig } from '../hostSetup.js';
import { defineCommand, type ParsedCommand } from '../command.js';

/** `switchboard pins`. */
export const command = defineCommand({
  name: 'pins',
  summary: 'review pinned definitions: list | diff | approve | reject',
  usage: ['<list|diff|approve|reject> [server] [item] [--ack-findings] [--config FILE]'],
  description: `Reviews the definitions the gateway pinned. A tool, prompt, resource or template that
changed since it was approved (or appeared after the server was first pinned) is
quarantined: hidden from the model, its calls refused, until you decide here.
\`diff\` shows the scanner's findings for each new definition (rule id, severity,
evidence); approving a change that has findings needs --ack-findings.`,
  positionals: [
    { name: 'list', description: 'every pinned server (by id and identity), its items and their trust level' },
    { name: 'diff', description: 'the quarantined changes, classified (annotation less safe, parameter added, text changed, schema widened, ...), each with the scanner\'s findings for the new definition' },
    { name: 'approve', description: 'serve the changed definition from now on (trust level "approved"); refused when the scanner has findings for it, unless --ack-findings' },
    {
      name: 'reject',
      description: 'keep it quarantined; it is not offered again while it stays the same (each approval and rejection is recorded in the audit log as cli:<user>)',
    },
    { name: 'server', description: 'a configured id (or a pinned identity); default: every server' },
    { name: 'item', description: 'e.g. tool:search, prompt:greet, or a bare name; "instructions" for changed server instructions; default: every pending change of the server' },
  ],
  options: {
    'ack-findings': { type: 'boolean', description: "approve: I have read the scanner's findings (pins diff) and approve anyway; the audit record names them" },
    config: { type: 'string', value: 'FILE', description: "the gateway's config; its stateDir holds pins.db", default: "./switchboard.json, else the running gateway's, else the per-user one" },
  },
  run: runPins,
});

/** Runs the command. */
async function runPins({ options, positionals }: ParsedCommand): Promise<void> {
  const [action, server, item, ...extra] = positionals;
  if (action === undefined) throw new UsageError('which action: list, diff, approve or reject?');
  if (!['list', 'diff', 'approve', 'reject'].includes(action)) throw new UsageError(`unknown action ${JSON.stringify(action)}`);
  if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
  const ack = options['ack-findings'] === true;
  if (ack && action !== 'approve') throw new UsageError('--ack-findings belongs to approve');
  if ((action === 'approve' || action === 'reject') && server === undefined) throw new UsageError(`${action} needs a server (and optionally an item): decide per server, after \`switchboard pins diff\``);
  const config = await loadConfig(await configFileOption(options['config'], true));
  // With switchboard.store the pins are the instances' shared ones in PostgreSQL (the save notifies them).
  const shared = config.store !== undefined ? await openSharedStores(config.store, undefined) : undefined;
  let store: PinStore & { close?(): Promise<void> };
  try {
    store = shared?.pins ?? openPinStore(config.stateDir);
  } catch (error) {
    throw new CliFailure(error instanceof Error ? error.message : String(error));
  }
  try {
    // The SQLite store is checked against its anchor, and an approval moves the anchor with it.
    if (shared === undefined) store = await anchoredPins(config, store);
  } catch (error) {
    await store.close?.();
    throw new CliFailure(error instanceof Error ? error.message : String(error));
  }
  let audit: (AuditLog & { close(): Promise<void> }) | undefined;
  try {
    const records = selectRecords(await store.load(), server);
    if (action === 'list') return void process.stdout.write(formatPinList(records));
    if (action === 'diff') return void process.stdout.write(formatPinDiff(records, item));
    const now = Date.now();
    if (config.audit) audit = shared?.audit ?? SqliteAuditLog.open(auditFile(config.stateDir), auditStoreOptions(config));
    const decision = audit !== undefined ? { log: audit, by: `cli:${currentUser()}` } : undefined;
    for (const record of records) {
      const keys = await decidePending(store, record.identity, action === 'approve' ? 'approve' : 'reject', item, now, decision, ack);
      if (keys.length === 0) {
        process.stdout.write(`${record.alias}: nothing pending\n`);
        continue;
      }
      process.stdout.write(`${record.alias}: ${action === 'approve' ? 'approved' : 'rejected'} ${keys.join(', ')}\n`);
    }
  } catch (error) {
    if (isMcpError(error)) throw new CliFailure(error.message);
    throw error;
  } finally {
    await audit?.close();
    await store.close?.();
    await shared?.close();
  }
}

/** The operating-system user running the command (the `cli:<user>` of its audit records). */
function currentUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env['USER'] ?? process.env['USERNAME'] ?? 'unknown';
  }
}
