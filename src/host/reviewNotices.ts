/**
 * The log lines a person sees when the gateway holds something back (issue #32): a quarantine
 * by the pins or a block (or warning) by the poisoning scanner is logged once per item per
 * change, never once per call or per refresh. An item is remembered by its last state only
 * (bounded by the number of items); a change of state (a new reason, new rules, a new verdict)
 * is logged again, as is a quarantine that comes back after it was lifted.
 *
 * @module
 */
import type { WithheldItem } from './hostTypes.js';
import type { ItemReport } from './scanner/types.js';

/** Logs each quarantine and each scanner verdict once per item per change. */
export class ReviewNotices {
  readonly #warn: (line: string) => void;
  /** `<source> <server> <kind> <item>` → the state last logged. */
  readonly #last = new Map<string, string>();

  constructor(warn: (line: string) => void) {
    this.#warn = warn;
  }

  /** A scanner report (a `warn` or `block` verdict) of server `serverId`'s item. */
  scannerReport(serverId: string, report: ItemReport): void {
    const rules = [...new Set(report.findings.map((f) => f.rule))].join(', ');
    const line = `scanner: ${report.kind} ${serverId}/${report.item}: ${report.verdict} (${rules})`;
    this.#once(`scan\n${serverId}\n${report.kind}\n${report.item}`, line, line);
  }

  /** What the trust layer withholds now: each newly withheld item (or one withheld for a new reason) is logged; the lifted ones are forgotten. */
  withheld(items: readonly WithheldItem[]): void {
    const now = new Set<string>();
    for (const w of items) {
      const key = `held\n${w.serverId}\n${w.kind}\n${w.name}`;
      now.add(key);
      this.#once(key, w.reason, `quarantined: ${w.kind} ${w.serverId}/${w.name}: ${w.reason}`);
    }
    for (const key of this.#last.keys()) if (key.startsWith('held\n') && !now.has(key)) this.#last.delete(key);
  }

  #once(key: string, state: string, line: string): void {
    if (this.#last.get(key) === state) return;
    this.#last.set(key, state);
    this.#warn(line);
  }
}
