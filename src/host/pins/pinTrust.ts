/**
 * The pins: a {@link CatalogVetter} for the host registry and the `trust.pins` interceptor.
 *
 * - First use: every definition of a server never seen before is pinned (trust
 *   `first-use`, or `pinned-key`/`trusted-publisher` when its manifest verifies).
 * - Later lists: a definition whose field-group digests match its pin is served as pinned
 *   (so a server that answers differently from one request to the next cannot slip a new text
 *   to the model). A changed one is quarantined: withheld, its calls refused with a reason
 *   naming the change and the review commands, until a person approves it
 *   (`switchboard pins approve`). A change signed by a trusted publisher key is accepted.
 * - New items on a server already pinned, by kind:
 *
 *   | kind | new item | changed item |
 *   |---|---|---|
 *   | tool, prompt, template | quarantined (`added`): a tool that appears mid-session is a rug pull by addition | quarantined |
 *   | resource | pinned on first sight (trust `first-use`) | quarantined |
 *
 *   A resource list enumerates data (files, rows, messages) and changes all the time, and a
 *   resource is read, not run: quarantining every new URI would make pins unusable. Its text is
 *   still judged by the scanner like any other; a pinned URI whose definition changes is
 *   quarantined like a tool.
 * - Calls check a verdict computed at list time: a map lookup, nothing is hashed per call.
 * - Identity (`serverIdentity.ts`): a stdio server whose env values are part of its identity
 *   and has no record yet takes over (moves), once, the record of the same launch (same command,
 *   arguments, directory and env names) pinned under the same configured id, if exactly one
 *   exists: the record written before env values counted (an upgrade), or the one of its
 *   values before a token was rotated. What was approved or pending stays so; nothing is
 *   pinned anew on first use by that change alone.
 * - A store that cannot be read or written quarantines everything (fail closed).
 * - Several gateway instances share one store: a list's write lands only over the record it
 *   was decided on (compare-and-set); otherwise the list is decided again on the fresh record,
 *   so a quarantine decided on a stale record never undoes an approval made elsewhere.
 *
 * @module
 */
import { canonicalize } from '../../util/canonicalJson.js';
import { describeError } from '../../util/errors.js';
import { silentLogger, type Logger } from '../../util/logger.js';
import { definitionDigest, type ManifestPayload } from '../../protocol/manifest.js';
import type { CatalogLists, CatalogVetter, QuarantinedItem, VetInput, VetResult } from '../catalogVetting.js';
import { DeniedError, methodInterceptor, type Interceptor } from '../interceptors.js';
import { changeClasses, diffDefinitions } from './pinDiff.js';
import { changedGroups, groupDigests, itemKey, namesDigest, pinnedName } from './pinDigests.js';
import type { ItemKind } from '../../protocol/model/common.js';
import type { PendingItem, PinnedItem, PinStore, ServerPins, TrustLevel } from './pinStore.js';
import { displayIdentity, ENV_DIGEST_MARK, launchOfIdentity, serverIdentity } from './serverIdentity.js';
import type { DownstreamSpec } from '../spec.js';
import { checkSignature, type ResolvedTrustedKey, type SignatureOutcome, type SignaturePolicy, type TrustedKey } from './signatureCheck.js';
import { keyThumbprint } from '../../protocol/manifest.js';

/** Options of {@link PinTrust.open}. */
export interface PinTrustOptions {
  readonly store: PinStore;
  /** Publisher keys from the config. */
  readonly trustedKeys?: readonly TrustedKey[];
  /** The signature policy of a server (by configured id). Default `warn`. */
  readonly signaturePolicy?: (serverId: string) => SignaturePolicy;
  readonly logger?: Logger;
  /** The clock (tests). Default `Date.now`. */
  readonly now?: () => number;
  /** The deployment's identity key: env values then count in a stdio server's identity (`serverIdentity.ts`). */
  readonly identityKey?: Uint8Array;
}

/** The interceptor id that refusals carry. */
export const PINS_INTERCEPTOR = 'trust.pins';

const LISTS: readonly (readonly [ItemKind, keyof CatalogLists])[] = [
  ['tool', 'tools'],
  ['prompt', 'prompts'],
  ['resource', 'resources'],
  ['template', 'templates'],
];

/** How often a list is decided again after its write met a newer record (see `#save`). */
const MAX_ATTEMPTS = 5;

const SIGNED: Partial<Record<ItemKind, keyof ManifestPayload>> = { tool: 'tools', prompt: 'prompts', template: 'resourceTemplates' };

/** Pinned definitions, checked on every list. */
export class PinTrust implements CatalogVetter {
  readonly #options: PinTrustOptions;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #records = new Map<string, ServerPins>();
  /** Server id → item key → refusal reason, for the items withheld at the last list. */
  readonly #verdicts = new Map<string, Map<string, string>>();
  #keys: readonly ResolvedTrustedKey[] = [];
  #failure: string | undefined;
  #writes: Promise<void> = Promise.resolve();

  private constructor(options: PinTrustOptions) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.#now = options.now ?? Date.now;
  }

  /** Loads the store. Rejects (`ERR_MCP_STORE_CORRUPT`) when it cannot be read: nothing may be served on an unknown trust state. */
  static async open(options: PinTrustOptions): Promise<PinTrust> {
    const trust = new PinTrust(options);
    trust.#keys = await Promise.all((options.trustedKeys ?? []).map(async (k) => ({ ...k, thumbprint: await keyThumbprint(k.jwk) })));
    for (const record of await options.store.load()) trust.#records.set(record.identity, record);
    return trust;
  }

  /** The stable identity of `spec` the pins are keyed by (`serverIdentity` with this deployment's key). */
  identityOf(spec: DownstreamSpec): string {
    return serverIdentity(spec, this.#options.identityKey);
  }

  /** Every server's pins, as last loaded or written. */
  get records(): readonly ServerPins[] {
    return [...this.#records.values()];
  }

  /** Why the pins refuse everything (the store failed), or undefined. */
  get failure(): string | undefined {
    return this.#failure;
  }

  /** Reads the store again (after `switchboard pins approve`). A failure quarantines everything until a later reload succeeds. */
  async reload(): Promise<void> {
    try {
      const records = await this.#options.store.load();
      this.#records.clear();
      for (const record of records) this.#records.set(record.identity, record);
      this.#failure = undefined;
    } catch (error) {
      this.#fail(`the pin store could not be read: ${describeError(error)}`);
    }
  }

  /** The refusal reason for an item of a server, or undefined when it is served. A map lookup. */
  verdict(serverId: string, kind: ItemKind, name: string): string | undefined {
    if (this.#failure !== undefined) return this.#failure;
    return this.#verdicts.get(serverId)?.get(itemKey(kind, name));
  }

  /** The `trust`-phase interceptor: refuses calls, gets and reads of withheld items (a precomputed verdict). */
  interceptor(): Interceptor {
    return methodInterceptor({
      id: PINS_INTERCEPTOR,
      phase: 'trust',
      methods: ['tools/call', 'prompts/get', 'resources/read'],
      intercept: (ctx, next) => {
        // Typed per method: a read names its URI, a call or get its name.
        const [kind, name] = ctx.method === 'resources/read' ? (['resource', ctx.params.uri] as const) : ([ctx.method === 'tools/call' ? 'tool' : 'prompt', ctx.params.name] as const);
        const reason = ctx.server === undefined || typeof name !== 'string' ? undefined : this.verdict(ctx.server.id, kind, name);
        if (reason !== undefined) {
          ctx.record({ interceptor: PINS_INTERCEPTOR, outcome: 'deny', reason });
          return Promise.reject(new DeniedError(PINS_INTERCEPTOR, reason));
        }
        return next();
      },
    });
  }

  /** Vets one list of a server (see the module comment). Never rejects. */
  vet(input: VetInput): Promise<VetResult> {
    return this.#vet(input, 1);
  }

  async #vet(input: VetInput, attempt: number): Promise<VetResult> {
    if (this.#failure !== undefined) return this.#withholdAll(input, this.#failure);
    const identity = this.identityOf(input.spec);
    const policy = this.#options.signaturePolicy?.(input.serverId) ?? 'warn';
    const stored = this.#records.get(identity);
    const carried = stored === undefined ? this.#carriedOver(input.serverId, identity) : undefined;
    const before = stored ?? carried?.record;
    this.#noticeIdentity(input.serverId, identity, before);
    const signature: SignatureOutcome =
      policy === 'off'
        ? { status: 'unsigned' }
        : await checkSignature({
            envelope: input.envelope,
            serverId: input.serverId,
            serverName: input.serverInfo?.name,
            pinnedThumbprint: before?.keyThumbprint,
            trustedKeys: this.#keys,
          });
    if (signature.status !== 'valid') {
      const why = signature.status === 'invalid' ? `its signed manifest is invalid: ${signature.reason}` : 'it sent no signed manifest';
      if (policy === 'require') return this.#withholdAll(input, `Server ${input.serverId} is not served: ${why}, and its signature policy is "require".`);
      if (signature.status === 'invalid') this.#logger.warn(`server ${input.serverId}: ${why}; its definitions are treated as unsigned`, { server: input.serverId });
    }
    const signed = signature.status === 'valid' ? signature : undefined;
    const now = this.#now();
    const items: Record<string, PinnedItem> = { ...before?.items };
    const pending: Record<string, PendingItem> = { ...before?.pending };
    const quarantined: QuarantinedItem[] = [];
    const served: Record<keyof CatalogLists, Record<string, unknown>[]> = { tools: [], prompts: [], resources: [], templates: [] };
    for (const [kind, list] of LISTS) {
      for (const definition of input.catalog[list] as readonly Record<string, unknown>[]) {
        const name = pinnedName(kind, definition);
        const key = itemKey(kind, name);
        const withhold = (reason: string): void => void quarantined.push({ kind, name, reason });
        let digests;
        try {
          digests = groupDigests(kind, definition);
        } catch (error) {
          withhold(`${label(kind, name, input.serverId)} cannot be pinned: ${describeError(error)}`);
          continue;
        }
        const member = SIGNED[kind];
        const covered = signed !== undefined && member !== undefined && (signed.payload[member] as Record<string, string>)[name] === definitionDigest(definition);
        if (policy === 'require' && member !== undefined && !covered) {
          withhold(`${label(kind, name, input.serverId)} is not covered by the server's signed manifest (its digest differs from the signed one, or it is not listed), and the signature policy is "require".`);
          continue;
        }
        const approved = items[key];
        if (approved !== undefined && changedGroups(approved.digests, digests).length === 0) {
          delete pending[key];
          served[list].push(approved.definition as Record<string, unknown>);
          continue;
        }
        const trust: TrustLevel | undefined = covered ? signed?.trust : undefined;
        if ((approved === undefined && (before === undefined || kind === 'resource')) || trust === 'trusted-publisher') {
          items[key] = { kind, name, definition, digests, trust: trust ?? 'first-use', at: now };
          delete pending[key];
          served[list].push(definition);
          continue;
        }
        const previous = pending[key];
        if (previous?.status === 'rejected' && changedGroups(previous.digests, digests).length === 0) {
          withhold(`${label(kind, name, input.serverId)} was changed and a person rejected the change: it stays quarantined (hidden, calls refused). See \`switchboard pins diff ${input.serverId} ${key}\`.`);
          continue;
        }
        const changes = diffDefinitions(kind, approved?.definition, definition);
        const sameAsBefore = previous !== undefined && changedGroups(previous.digests, digests).length === 0;
        pending[key] = { kind, name, definition, digests, status: approved === undefined ? 'added' : 'changed', changes, at: sameAsBefore ? previous.at : now };
        withhold(quarantineReason(kind, name, input.serverId, key, approved === undefined ? 'is new since the server was pinned' : `changed since it was approved (${changeClasses(changes)})`));
      }
    }
    const instructions = before === undefined ? input.instructions : before.instructions;
    let pendingInstructions = before?.pendingInstructions;
    if (before !== undefined && input.instructions !== before.instructions) {
      if (pendingInstructions !== input.instructions) this.#logger.warn(`server ${input.serverId}: its instructions changed since they were approved; the approved ones are kept (review with \`switchboard pins diff ${input.serverId}\`)`, { server: input.serverId });
      pendingInstructions = input.instructions;
    } else pendingInstructions = undefined;
    const keyThumbprint = signed?.thumbprint ?? before?.keyThumbprint;
    if (signed?.rotatedFrom !== undefined) this.#logger.info(`server ${input.serverId}: signing key rotated from ${signed.rotatedFrom} to ${signed.thumbprint} (signed by the old key)`, { server: input.serverId });
    const unchanged = stored !== undefined && sameContent(stored, items, pending, input.serverId, keyThumbprint, pendingInstructions);
    const record: ServerPins = {
      identity,
      alias: input.serverId,
      ...(keyThumbprint !== undefined ? { keyThumbprint } : {}),
      ...(instructions !== undefined ? { instructions } : {}),
      ...(pendingInstructions !== undefined ? { pendingInstructions } : {}),
      names: namesDigest(Object.keys(items)),
      items,
      pending,
      updatedAt: unchanged ? stored.updatedAt : now,
    };
    // Decided on content, not on the clock: a change within the same millisecond is saved too.
    if (!unchanged) {
      let written: boolean;
      try {
        written = await this.#save(stored, record);
      } catch (error) {
        return this.#withholdAll(input, this.#fail(`the pin store could not be written: ${describeError(error)}`));
      }
      // Another instance (or `pins approve`) changed the record since it was read: decide again on the fresh one.
      if (!written) {
        if (attempt < MAX_ATTEMPTS) return this.#vet(input, attempt + 1);
        return this.#withholdAll(input, `Server ${input.serverId} is not served: its pins kept changing while they were written (${MAX_ATTEMPTS} attempts); the next list tries again.`);
      }
    }
    this.#verdicts.set(input.serverId, new Map(quarantined.map((q) => [itemKey(q.kind, q.name), q.reason])));
    if (before === undefined) this.#logger.info(`server ${input.serverId}: pinned on first use as ${displayIdentity(identity, keyThumbprint)}`, { server: input.serverId });
    else if (carried !== undefined) await this.#moved(input.serverId, identity, carried.from);
    return { catalog: served as unknown as CatalogLists, quarantined, instructions };
  }

  /**
   * Writes `record` over the stored one only if that is still `before` (what it was decided
   * on): a compare-and-set in one atomic {@link PinStore.update}, so a write decided on a stale
   * record never undoes another instance's change, such as an approval (the lost update). Resolves
   * false on a conflict, with the fresh record cached to decide again on.
   */
  async #save(before: ServerPins | undefined, record: ServerPins): Promise<boolean> {
    const expected = before === undefined ? undefined : fingerprint(before);
    this.#records.set(record.identity, record);
    let written = false;
    const write = this.#writes.then(() =>
      this.#options.store.update(record.identity, (current) => {
        if ((current === undefined ? undefined : fingerprint(current)) !== expected) return undefined;
        written = true;
        return record;
      }),
    );
    this.#writes = write.then(
      () => undefined,
      () => undefined,
    );
    const stored = await write;
    if (!written && this.#records.get(record.identity) === record) {
      if (stored === undefined) this.#records.delete(record.identity);
      else this.#records.set(record.identity, stored);
    }
    return written;
  }

  #fail(reason: string): string {
    const failure = `${reason}. Nothing from pinned servers is served until the store is repaired (fail closed).`;
    this.#failure = failure;
    this.#logger.error(failure);
    return failure;
  }

  #withholdAll(input: VetInput, reason: string): VetResult {
    const quarantined: QuarantinedItem[] = [];
    for (const [kind, list] of LISTS) {
      for (const d of input.catalog[list] as readonly Record<string, unknown>[]) quarantined.push({ kind, name: pinnedName(kind, d), reason });
    }
    this.#verdicts.set(input.serverId, new Map(quarantined.map((q) => [itemKey(q.kind, q.name), q.reason])));
    return { catalog: { tools: [], prompts: [], resources: [], templates: [] }, quarantined, instructions: undefined };
  }

  /**
   * The record `identity` (a stdio launch with an env digest, no record yet) takes over: the one
   * record of the same launch pinned under `serverId`, with `identity` in place of its own; else undefined.
   */
  #carriedOver(serverId: string, identity: string): { readonly record: ServerPins; readonly from: string } | undefined {
    if (!identity.startsWith('stdio:') || !identity.includes(ENV_DIGEST_MARK)) return undefined;
    const launch = launchOfIdentity(identity);
    const family = [...this.#records.values()].filter((r) => r.alias === serverId && launchOfIdentity(r.identity) === launch);
    const only = family.length === 1 ? family[0] : undefined;
    return only === undefined ? undefined : { record: { ...only, identity }, from: only.identity };
  }

  /** Forgets the record `from` whose pins `identity` took over (one record per entry: `switchboard pins` finds it by id). */
  async #moved(serverId: string, identity: string, from: string): Promise<void> {
    this.#logger.info(`server ${serverId}: pinned as ${identity}, its pins carried over from ${from} (same launch and id; its env values differ or were not counted before)`, { server: serverId });
    this.#records.delete(from);
    try {
      await this.#options.store.remove(from);
    } catch (error) {
      this.#logger.warn(`server ${serverId}: the record its pins were carried over from (${from}) could not be removed: ${describeError(error)}`, { server: serverId });
    }
  }

  /** Logs once when a configured id now names another server than the one pinned under it (a swapped command loses its trust). */
  #noticeIdentity(serverId: string, identity: string, record: ServerPins | undefined): void {
    if (record !== undefined) return;
    const other = [...this.#records.values()].find((r) => r.alias === serverId);
    if (other !== undefined) this.#logger.warn(`server ${serverId} is not the server pinned under that name (was ${other.identity}, now ${identity}): its pins do not carry over; it is pinned anew on first use`, { server: serverId });
  }
}

/** The record's content, independent of key order (PostgreSQL's jsonb reorders keys). */
function fingerprint(record: ServerPins): string {
  try {
    return canonicalize(record);
  } catch {
    return JSON.stringify(record); // not I-JSON: compared as is (at worst a conflict, decided again)
  }
}

function label(kind: ItemKind, name: string, serverId: string): string {
  return `${kind[0]?.toUpperCase()}${kind.slice(1)} ${JSON.stringify(name)} of server ${serverId}`;
}

function quarantineReason(kind: ItemKind, name: string, serverId: string, key: string, what: string): string {
  return (
    `${label(kind, name, serverId)} ${what}. It is quarantined: hidden from the model and its calls refused until a person reviews it. ` +
    `Review with \`switchboard pins diff ${serverId} ${key}\`, then \`switchboard pins approve ${serverId} ${key}\` or \`switchboard pins reject ${serverId} ${key}\`.`
  );
}

function sameContent(
  before: ServerPins,
  items: Record<string, PinnedItem>,
  pending: Record<string, PendingItem>,
  alias: string,
  keyThumbprint: string | undefined,
  pendingInstructions: string | undefined,
): boolean {
  const sameKeys = (a: Readonly<Record<string, { readonly digests: object; readonly at: number }>>, b: Readonly<Record<string, { readonly digests: object; readonly at: number }>>): boolean => {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => b[k] !== undefined && a[k]?.at === b[k].at && JSON.stringify(a[k]?.digests) === JSON.stringify(b[k].digests));
  };
  return (
    before.alias === alias &&
    before.keyThumbprint === keyThumbprint &&
    before.pendingInstructions === pendingInstructions &&
    sameKeys(before.items, items) &&
    sameKeys(before.pending, pending)
  );
}
