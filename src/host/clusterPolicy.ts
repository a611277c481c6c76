/**
 * One policy for a cluster of gateway instances: the `switchboard.policy` section and the
 * servers' labels are a versioned document in a {@link SharedPolicyStore} (the store layer's
 * PostgreSQL one, with `--store`), and every instance runs the newest version.
 *
 * - **Publishing.** An instance whose config file's policy changed while it runs (the file
 *   watcher) publishes it as the next version, and applies it at once; the store notifies the
 *   others, which read and apply it within a second. Each applied change is a `policy` audit
 *   record naming the version, who published it and the digests before and after.
 * - **A stale file never rolls the cluster back.** At start an instance runs the cluster's
 *   version, whatever its own file says (a warning names both digests); it publishes its file
 *   only when the cluster has no policy yet or when told to (`publish`, the gateway's
 *   `--publish-policy`). A later reload of the file publishes only when the file's *policy*
 *   changed since it was last read, so editing an unrelated part of a stale file does not
 *   publish the stale policy.
 * - **A version that does not read** (a rule that does not compile in this version of
 *   Switchboard) is not applied: the instance keeps its running policy, says so and audits it.
 *
 * @module
 */
import type { AuditEntry } from './audit.js';
import { policyDocument, readPolicyDocument, type PolicyConfig } from './configPolicy.js';
import type { ServerLabelConfig } from './policy/labels.js';
import { describePolicyChange, policyChangeEntry, policyDigest, refusedReloadEntry, type ReloadablePolicy } from './policy/policyReload.js';

/** One published version of the cluster's policy. */
export interface PublishedPolicy {
  /** 1, 2, …: each publication takes the next. */
  readonly version: number;
  /** `sha256:` of the policy (see `policyDigest`). */
  readonly digest: string;
  /** The policy document (`policyDocument`). */
  readonly document: unknown;
  /** The instance that published it. */
  readonly instance: string;
  /** ms since the epoch. */
  readonly publishedAt: number;
}

/** Where a cluster keeps its policy (the store layer implements it). */
export interface SharedPolicyStore {
  /** The newest version, or undefined when none was published. */
  current(): Promise<PublishedPolicy | undefined>;
  /** Publishes `document` as the next version, unless the newest already has `digest` (then that one is returned). Tells every instance. */
  publish(document: unknown, digest: string, instance: string): Promise<PublishedPolicy>;
  /** Calls `onChange` after another instance published, and when the notifications may have been missed (reconnect). Returns a stop function. */
  watch(onChange: () => void): () => void;
}

/** Options of {@link ClusterPolicy}. */
export interface ClusterPolicyOptions {
  /** Names this instance in what it publishes. */
  readonly instance: string;
  /** Writes a `policy` / `config` audit record. */
  readonly audit?: (entry: AuditEntry) => Promise<void>;
  /** Told what changed and what was refused. */
  readonly warn: (line: string) => void;
  /** The clock (tests). Default `Date.now`. */
  readonly now?: () => number;
}

/** Keeps a {@link ReloadablePolicy} on the cluster's newest policy (see the module comment). */
export class ClusterPolicy {
  readonly #store: SharedPolicyStore;
  readonly #policy: ReloadablePolicy;
  readonly #options: ClusterPolicyOptions;
  readonly #now: () => number;
  #applied = 0;
  #fileDigest = '';
  #chain: Promise<void> = Promise.resolve();
  #stop: (() => void) | undefined;

  constructor(store: SharedPolicyStore, policy: ReloadablePolicy, options: ClusterPolicyOptions) {
    this.#store = store;
    this.#policy = policy;
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** The version this instance runs (0 before {@link start}). */
  get version(): number {
    return this.#applied;
  }

  /** Joins the cluster with the policy of this instance's file (see the module comment); then follows the cluster. */
  async start(policy: PolicyConfig, labels: Readonly<Record<string, ServerLabelConfig>>, publish = false): Promise<void> {
    this.#fileDigest = policyDigest(policy, labels);
    const row = await this.#store.current();
    if (row === undefined || (publish && row.digest !== this.#fileDigest)) await this.#publish(policy, labels);
    else {
      if (row.digest !== this.#fileDigest) {
        this.#options.warn(
          `this instance's config has policy ${this.#fileDigest}, the cluster runs version ${row.version} (${row.digest}, published by ${row.instance} at ${new Date(row.publishedAt).toISOString()}): running the cluster's. Edit the policy in a running instance's config to publish a new one, or start with --publish-policy`,
        );
      }
      await this.#adopt(row);
    }
    this.#stop = this.#store.watch(() => void this.sync());
  }

  /** This instance's config file was read again: publishes its policy when that changed since the file was last read. */
  async fileChanged(policy: PolicyConfig, labels: Readonly<Record<string, ServerLabelConfig>>): Promise<void> {
    const digest = policyDigest(policy, labels);
    if (digest === this.#fileDigest) return;
    this.#fileDigest = digest;
    await this.#publish(policy, labels);
  }

  /** Applies the cluster's newest version when it is newer than the running one. */
  sync(): Promise<void> {
    this.#chain = this.#chain.then(async () => {
      try {
        const row = await this.#store.current();
        if (row !== undefined && row.version > this.#applied) await this.#adopt(row);
      } catch (error) {
        this.#options.warn(`the cluster's policy could not be read (${error instanceof Error ? error.message : String(error)}); the running policy is kept, and read again on the next change`);
      }
    });
    return this.#chain;
  }

  /** Stops following the cluster. */
  stop(): void {
    this.#stop?.();
    this.#stop = undefined;
  }

  async #publish(policy: PolicyConfig, labels: Readonly<Record<string, ServerLabelConfig>>): Promise<void> {
    const row = await this.#store.publish(policyDocument(policy, labels), policyDigest(policy, labels), this.#options.instance);
    await this.#adopt(row, row.instance === this.#options.instance ? { policy, labels } : undefined);
  }

  /** Applies `row` (parsed, unless this instance's own `parsed` policy is it). */
  async #adopt(row: PublishedPolicy, parsed?: { policy: PolicyConfig; labels: Readonly<Record<string, ServerLabelConfig>> }): Promise<void> {
    if (row.version < this.#applied) return;
    let next = parsed;
    if (next === undefined) {
      try {
        next = readPolicyDocument(row.document, `the cluster's policy version ${row.version}`);
      } catch (error) {
        const message = `${error instanceof Error ? error.message : String(error)}; the running policy is kept`;
        this.#options.warn(message);
        this.#applied = row.version;
        await this.#options.audit?.(refusedReloadEntry(message, this.#now()))?.catch(() => undefined);
        return;
      }
    }
    const change = this.#policy.reload(next.policy, next.labels);
    this.#applied = row.version;
    if (change === undefined) return;
    const published = row.instance === this.#options.instance;
    this.#options.warn(`${describePolicyChange(change)} (cluster policy version ${row.version}${published ? ', published by this instance' : `, published by ${row.instance}`})`);
    await this.#options.audit?.(policyChangeEntry(change, this.#now(), { version: row.version, publishedBy: row.instance, published }))?.catch((error: unknown) => this.#options.warn(`the policy change could not be audited: ${String(error)}`));
  }
}
