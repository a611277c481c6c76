/**
 * `switchboard anchor status | reset`: the integrity anchor of the state stores (the pins and
 * the audit log; see `cli/stateAnchors.ts`). `status` checks them against it; `reset` is the
 * person's explicit acceptance of the stores as they are now (after moving or restoring the
 * state on purpose), recorded in the audit log.
 *
 * @module
 */
import { resolve as resolvePath } from 'node:path';
import type { AuditLog, AuditReader } from '../../host/audit.js';
import type { HostConfig } from '../../host/configTypes.js';
import type { PinStore } from '../../host/pins/pinStore.js';
import { SqliteAuditLog } from '../../store/sqliteAudit.js';
import { openPinStore } from '../../store/sqlitePinStore.js';
import { AnchoredPinStore } from '../../store/anchor/pinAnchor.js';
import { auditAnchorProblem, auditHead, type AuditCheckpoint } from '../../store/anchor/auditAnchor.js';
import { describeError } from '../../util/errors.js';
import { CliFailure, UsageError } from '../args.js';
import { auditFile, auditStoreOptions } from '../auditFiles.js';
import { defineCommand, type ParsedCommand } from '../command.js';
import { loadConfig } from '../hostSetup.js';
import { openSharedStores } from '../sharedStores.js';
import { anchorDir, openAnchors, postgresStoreName, stateStoreName } from '../stateAnchors.js';
import { counted } from '../../util/plural.js';

/** `switchboard anchor`. */
export const command = defineCommand({
  name: 'anchor',
  summary: 'check or reset the integrity anchor of the pins and the audit log',
  usage: ['<status|reset> [--config FILE]'],
  description: `The pin store and the audit log are anchored in a folder of this user's, outside the state
folder ($SWITCHBOARD_ANCHOR_DIR, else $XDG_STATE_HOME/switchboard/anchor or
~/.local/state/switchboard/anchor; %LOCALAPPDATA%\\switchboard\\anchor on Windows): a keyed checkpoint
of what each held. A store that was moved away, replaced, truncated or emptied no longer matches
it, and the gateway refuses to start on it. "reset" accepts the stores as they are now.`,
  positionals: [
    { name: 'status', description: 'check the pins and the audit log against their anchors; exit 1 when one does not match' },
    { name: 'reset', description: 'anchor the stores as they are now (after moving or restoring the state on purpose); the audit log records the reset' },
  ],
  options: {
    config: { type: 'string', value: 'FILE', description: 'the gateway config whose stateDir holds pins.db and audit.db', default: './switchboard.json' },
  },
  run: runAnchor,
});

const out = (line: string): void => void process.stdout.write(`${line}\n`);

interface Stores {
  readonly pins?: { readonly store: PinStore; readonly name: string };
  readonly audit?: { readonly log: AuditLog & AuditReader; readonly name: string };
  close(): Promise<void>;
}

async function runAnchor({ options, positionals }: ParsedCommand): Promise<number> {
  const [verb, ...rest] = positionals;
  if (verb !== 'status' && verb !== 'reset') throw new UsageError(verb === undefined ? 'say status or reset' : `unknown anchor command ${JSON.stringify(verb)}`);
  if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`);
  const config = await loadConfig(resolvePath(typeof options['config'] === 'string' ? options['config'] : 'switchboard.json'));
  const folder = openAnchors();
  const stores = await openStores(config);
  try {
    if (verb === 'status') {
      let ok = true;
      if (stores.pins !== undefined) {
        try {
          const { status } = await AnchoredPinStore.open(stores.pins.store, folder, stores.pins.name);
          out(`pins: ${status.created ? 'anchored now' : 'match their anchor'} (${counted(status.servers, 'server')})`);
        } catch (error) {
          ok = false;
          out(`pins: ${describeError(error)}`);
        }
      }
      if (stores.audit !== undefined) {
        const anchor = folder.read<AuditCheckpoint>('audit', stores.audit.name);
        const problem = anchor === undefined ? undefined : await auditAnchorProblem(stores.audit.log, anchor);
        if (problem !== undefined) ok = false;
        out(`audit: ${anchor === undefined ? 'no anchor yet (the gateway writes one)' : (problem ?? `holds its anchored record ${anchor.seq} (checkpoint of ${anchor.time})`)}`);
      }
      out(`anchor folder: ${anchorDir()}`);
      return ok ? 0 : 1;
    }
    const said: string[] = [];
    if (stores.pins !== undefined) said.push(`pins: ${counted(await AnchoredPinStore.reset(stores.pins.store, folder, stores.pins.name), 'server')}`);
    if (stores.audit !== undefined) {
      const { log, name } = stores.audit;
      let old: AuditCheckpoint | undefined;
      try {
        old = folder.read<AuditCheckpoint>('audit', name);
      } catch (error) {
        said.push(`(the old audit anchor was unreadable: ${describeError(error)})`);
      }
      const before = await auditHead(log);
      const reason = `anchor reset by a person: the audit anchor said record ${old?.seq ?? 0} (${old?.hash ?? 'none'}); the log ended at record ${before.seq} (${before.hash})`;
      await log.append({ time: new Date().toISOString(), kind: 'anchor-reset', method: 'anchor/reset', decisions: [], outcome: 'ok', error: reason, latencyMs: 0 });
      const head = await auditHead(log);
      folder.write<AuditCheckpoint>('audit', name, head);
      said.push(`audit: record ${head.seq} (${head.hash}), the reset recorded`);
    }
    out(`re-anchored in ${anchorDir()}: ${said.join('; ')}`);
    return 0;
  } finally {
    await stores.close();
  }
}

/** The config's pin store (SQLite only: see `stateAnchors.ts`) and audit log (SQLite or PostgreSQL), as anchored. */
async function openStores(config: HostConfig): Promise<Stores> {
  const shared = config.store !== undefined ? await openSharedStores(config.store, undefined) : undefined;
  const closers: (() => Promise<void> | void)[] = [];
  try {
    let pins: Stores['pins'];
    if (config.pins && shared === undefined) {
      const store = openPinStore(config.stateDir);
      closers.push(() => store.close());
      pins = { store, name: stateStoreName(config.stateDir, 'pins.db') };
    }
    let audit: Stores['audit'];
    if (config.audit) {
      if (shared?.audit !== undefined) audit = { log: shared.audit as AuditLog & AuditReader, name: postgresStoreName(config.store as string) };
      else {
        const log = SqliteAuditLog.open(auditFile(config.stateDir), auditStoreOptions(config));
        closers.unshift(() => log.close());
        audit = { log, name: stateStoreName(config.stateDir, 'audit.db') };
      }
    }
    return {
      ...(pins !== undefined ? { pins } : {}),
      ...(audit !== undefined ? { audit } : {}),
      close: async () => {
        for (const close of closers) await close();
        await shared?.close();
      },
    };
  } catch (error) {
    for (const close of closers) await close();
    await shared?.close();
    throw new CliFailure(describeError(error));
  }
}
