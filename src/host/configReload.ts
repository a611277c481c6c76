/**
 * Config reload approval: a reloaded `switchboard.json` that weakens security (a control off
 * or down, a server added, a launch or URL changed: {@link weakeningChanges}) waits for a
 * person; one that only tightens applies live. Whoever can write the config file (an agent
 * through a filesystem server it was given) must not be able to switch the gateway's controls
 * off by writing it.
 *
 * {@link ConfigReloadGate.offer} takes each reloaded config with its keyed digest
 * (`configApproval` of `launchKeys.ts`: an HMAC of the file's text under the state store's
 * key). A weakening config is held: the running one stays in force, the log says so, the
 * audit log records it, and the {@link ConfigApprovalStore} publishes what waits (the CLI's
 * `switchboard config pending`). A person approves out of band, with the state store or the
 * admin credential: `switchboard config approve` records the digest in the store (the gateway
 * notices and calls {@link ConfigReloadGate.recheck}), or the console's Review page calls
 * {@link ConfigReloadGate.approve}. An approval names the digest it was shown: a config
 * written after it is a new change. An approval is used once.
 *
 * @module
 */
import type { AuditEntry } from './audit.js';
import { weakeningChanges, type WeakeningChange } from './configChanges.js';
import type { HostConfig } from './configTypes.js';
import { describeError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';

/** The id config decisions are recorded under in the audit log. */
export const CONFIG_GATE_ID = 'config.reload';

/** A reloaded config waiting for a person: its digest, file, the weakening changes, when. */
export interface PendingConfig {
  /** The keyed digest an approval must name (`hmac-sha256:<hex>`). */
  readonly digest: string;
  readonly file: string;
  readonly changes: readonly WeakeningChange[];
  /** When it was read (ms since the epoch). */
  readonly at: number;
}

/** Where the pending config is published and a person's approval recorded (the state folder: `store/jsonFileStore.ts`). */
export interface ConfigApprovalStore {
  /** Publishes what waits; `undefined` = nothing waits. */
  setPending(pending: PendingConfig | undefined): Promise<void>;
  /** What waits, as published. */
  pending(): Promise<PendingConfig | undefined>;
  /** The digest a person approved and that was not used yet, if any. */
  approved(): Promise<string | undefined>;
  /** Records a person's approval of `digest`. */
  approve(digest: string): Promise<void>;
  /** Forgets the recorded approval (it was used). */
  consume(): Promise<void>;
}

/** Options of {@link ConfigReloadGate}. */
export interface ConfigGateOptions {
  /** The config in force. */
  readonly current: () => HostConfig;
  /** Applies a config (the gateway's reconcile and policy reload). */
  readonly apply: (next: HostConfig) => Promise<void>;
  /** Runs before an approved config is applied (the CLI records its launches as approved: the person saw them). */
  readonly approved?: (next: HostConfig) => Promise<void>;
  readonly store: ConfigApprovalStore;
  readonly logger: Logger;
  readonly audit?: (entry: AuditEntry) => Promise<void>;
  /** The clock (tests). Default `Date.now`. */
  readonly now?: () => number;
}

/** What {@link ConfigReloadGate.offer} did with a config. */
export type OfferOutcome = 'applied' | 'held' | 'approved';

/** A person's approval named a digest that does not wait (any more). */
export class NoSuchPendingConfigError extends Error {
  constructor(digest: string, pending: PendingConfig | undefined) {
    super(pending === undefined ? `no reloaded config waits for approval (was ${digest} applied or replaced?)` : `the config waiting now is ${pending.digest}, not ${digest}: review it again`);
    this.name = 'NoSuchPendingConfigError';
  }
}

/** The gate between a reloaded config and the running gateway (see the module comment). */
export class ConfigReloadGate {
  readonly #o: ConfigGateOptions;
  #pending: { readonly info: PendingConfig; readonly config: HostConfig } | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: ConfigGateOptions) {
    this.#o = options;
  }

  /** The config waiting for a person, if any. */
  get pending(): PendingConfig | undefined {
    return this.#pending?.info;
  }

  /** Applies `next` when it only tightens, or when a person already approved `digest`; otherwise holds it. */
  offer(next: HostConfig, digest: string): Promise<OfferOutcome> {
    return this.#serial(async () => {
      const changes = weakeningChanges(this.#o.current(), next);
      if (changes.length === 0) {
        await this.#clear();
        await this.#o.apply(next);
        return 'applied';
      }
      if ((await this.#o.store.approved()) === digest) {
        await this.#applyApproved(next, { digest, file: next.file, changes, at: this.#now() }, 'state store');
        return 'approved';
      }
      const info: PendingConfig = { digest, file: next.file, changes, at: this.#now() };
      this.#pending = { info, config: next };
      this.#o.logger.warn(`config not applied: ${next.file} weakens security and waits for approval (switchboard config approve, or the console's Review page); the running config is kept:\n${changes.map((c) => `  - ${c.reason}`).join('\n')}`);
      await this.#o.store.setPending(info).catch((error: unknown) => this.#o.logger.error(`the pending config could not be published: ${describeError(error)}`));
      await this.#record(entry(this.#now(), 'ask', `config change held for approval: ${changes.map((c) => c.reason).join('; ')}`, { digest, changes }, 'denied'));
      return 'held';
    });
  }

  /** A person approved `digest` on the console: recorded, then the waiting config applied. Throws {@link NoSuchPendingConfigError} when it does not wait. */
  approve(digest: string, by: string): Promise<void> {
    return this.#serial(async () => {
      const pending = this.#pending;
      if (pending === undefined || pending.info.digest !== digest) throw new NoSuchPendingConfigError(digest, pending?.info);
      await this.#o.store.approve(digest);
      await this.#applyApproved(pending.config, pending.info, by);
    });
  }

  /** The store's approval may have changed (`switchboard config approve` in another process): applies the waiting config when it is approved. */
  recheck(): Promise<boolean> {
    return this.#serial(async () => {
      const pending = this.#pending;
      if (pending === undefined || (await this.#o.store.approved()) !== pending.info.digest) return false;
      await this.#applyApproved(pending.config, pending.info, 'state store');
      return true;
    });
  }

  async #applyApproved(next: HostConfig, info: PendingConfig, by: string): Promise<void> {
    // Used once: the same text written again later is a new change.
    await this.#o.store.consume();
    await this.#clear();
    await this.#o.approved?.(next);
    await this.#o.apply(next);
    this.#o.logger.warn(`config ${next.file} applied after approval (${by}): ${info.changes.map((c) => c.reason).join('; ')}`);
    await this.#record(entry(this.#now(), 'allow', `config change approved by ${by}: ${info.changes.map((c) => c.reason).join('; ')}`, { digest: info.digest, changes: info.changes, by }, 'ok'));
  }

  async #clear(): Promise<void> {
    if (this.#pending === undefined) return;
    this.#pending = undefined;
    await this.#o.store.setPending(undefined).catch((error: unknown) => this.#o.logger.error(`the pending config could not be cleared: ${describeError(error)}`));
  }

  async #record(e: AuditEntry): Promise<void> {
    await this.#o.audit?.(e).catch((error: unknown) => this.#o.logger.error(`the config decision could not be audited: ${describeError(error)}`));
  }

  #now(): number {
    return (this.#o.now ?? Date.now)();
  }

  #serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => undefined);
    return run;
  }
}

function entry(time: number, outcome: 'ask' | 'allow', reason: string, detail: Record<string, unknown>, result: 'ok' | 'denied'): AuditEntry {
  return {
    time: new Date(time).toISOString(),
    kind: 'config',
    method: 'config/reload',
    decisions: [{ interceptor: CONFIG_GATE_ID, outcome, reason, detail }],
    outcome: result,
    ...(result === 'denied' ? { error: 'held for approval' } : {}),
    latencyMs: 0,
  };
}
