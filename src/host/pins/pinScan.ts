/**
 * The pins in `switchboard scan`: a {@link CatalogVetter} that runs every list through the
 * gateway's {@link PinTrust} (same store, same rules: a server never seen is pinned on first
 * sight, a changed or new item becomes a pending change) but hands the lists on as received,
 * so the scanner judges what the server sends now. What the pins withheld is kept as
 * {@link PinFinding}s with the classified diff, for the report and the exit code.
 *
 * A pending change stays a finding on every later scan until a person approves or rejects it
 * (`switchboard pins approve|reject`), as the gateway keeps it quarantined until then: a server
 * that flips back and forth cannot clear it by being scanned twice.
 *
 * @module
 */
import type { CatalogVetter, VetInput, VetResult } from '../catalogVetting.js';
import type { PinChange } from './pinDiff.js';
import { itemKey } from './pinDigests.js';
import type { ItemKind } from '../../protocol/model/common.js';
import type { PinTrust } from './pinTrust.js';
import { INSTRUCTIONS_ITEM } from './pinReview.js';

/** Why the pins hold an item back: changed or new since approved, rejected by a person, or withheld for another reason (store, signature). */
export type PinFindingStatus = 'changed' | 'added' | 'rejected' | 'withheld';

/** One item of a scanned server that is not the approved definition. */
export interface PinFinding {
  /** The configured id. */
  readonly server: string;
  readonly kind: ItemKind | 'instructions';
  /** Name, URI or URI template (`instructions` for the server's instructions). */
  readonly item: string;
  /** The item key `switchboard pins diff|approve|reject <server> <key>` takes. */
  readonly key: string;
  readonly status: PinFindingStatus;
  /** The gateway's refusal text (what changed and how to review it). */
  readonly reason: string;
  /** The classified differences from the approved definition (empty when withheld for another reason). */
  readonly changes: readonly PinChange[];
}

/** Pins what a scan lists and records what differs from the pins; serves the lists unchanged. */
export class PinScan implements CatalogVetter {
  readonly #trust: PinTrust;
  readonly #findings = new Map<string, readonly PinFinding[]>();
  readonly #firstUse = new Set<string>();

  constructor(trust: PinTrust) {
    this.#trust = trust;
  }

  /** Every server's findings at its last list, by server then item order. */
  get findings(): readonly PinFinding[] {
    return [...this.#findings.values()].flat();
  }

  /** The servers pinned for the first time by this scan. */
  get pinnedOnFirstUse(): readonly string[] {
    return [...this.#firstUse];
  }

  /** Vets through the pins (which pins and records), then serves the lists as received. */
  async vet(input: VetInput): Promise<VetResult> {
    const identity = this.#trust.identityOf(input.spec);
    const known = this.#trust.records.some((r) => r.identity === identity);
    const result = await this.#trust.vet(input);
    if (!known && this.#trust.records.some((r) => r.identity === identity)) this.#firstUse.add(input.serverId);
    const record = this.#trust.records.find((r) => r.identity === identity);
    const findings: PinFinding[] = result.quarantined.map((q) => {
      const key = itemKey(q.kind, q.name);
      const pending = this.#trust.failure === undefined ? record?.pending[key] : undefined;
      return { server: input.serverId, kind: q.kind, item: q.name, key, status: pending?.status ?? 'withheld', reason: q.reason, changes: pending?.changes ?? [] };
    });
    if (record?.pendingInstructions !== undefined && this.#trust.failure === undefined) {
      findings.push({
        server: input.serverId,
        kind: 'instructions',
        item: INSTRUCTIONS_ITEM,
        key: INSTRUCTIONS_ITEM,
        status: 'changed',
        reason: `The instructions of server ${input.serverId} changed since they were approved; the gateway keeps serving the approved ones. Review with \`switchboard pins diff ${input.serverId} ${INSTRUCTIONS_ITEM}\`.`,
        changes: [{ class: 'text-changed', path: '$.instructions', summary: `instructions changed: ${JSON.stringify(record.instructions ?? null)} → ${JSON.stringify(record.pendingInstructions)}` }],
      });
    }
    this.#findings.set(input.serverId, findings);
    return { catalog: input.catalog, quarantined: [], instructions: input.instructions };
  }
}
