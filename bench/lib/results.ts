/**
 * The result model: one cell per (section, target, variant), each with the metrics of every
 * run and their medians. Serialised as-is to `bench/results/latest.json`.
 *
 * @module
 */
import { median } from './stats.js';
import type { Metrics } from './measure.js';

/** Sections of the report. */
export type Section = 'http' | 'stdio' | 'coldstart' | 'list' | 'sessions' | 'client';

/** One measured (or skipped) combination. */
export interface Cell {
  readonly section: Section;
  readonly target: string;
  /** e.g. `stateless c=32`, `seq`, `http c=1`. */
  readonly variant: string;
  status: 'ok' | 'unsupported' | 'error';
  note?: string;
  /** Per-run metrics. */
  readonly runs: Metrics[];
  /** Median of each metric over the runs. */
  median: Metrics;
}

/** Everything one `npm run bench` produced. */
export interface BenchResults {
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly machine: Readonly<Record<string, string | number | boolean>>;
  readonly method: Readonly<Record<string, string | number | boolean>>;
  readonly versions: Readonly<Record<string, string>>;
  readonly cells: readonly Cell[];
}

/** Collects cells across interleaved runs. */
export class CellStore {
  readonly #cells = new Map<string, Cell>();

  /** The cell for a key, created on first use. */
  cell(section: Section, target: string, variant: string): Cell {
    const key = `${section}|${target}|${variant}`;
    let cell = this.#cells.get(key);
    if (cell === undefined) {
      cell = { section, target, variant, status: 'ok', runs: [], median: {} };
      this.#cells.set(key, cell);
    }
    return cell;
  }

  /** Records one run's metrics. */
  add(section: Section, target: string, variant: string, metrics: Metrics): void {
    const cell = this.cell(section, target, variant);
    cell.runs.push(metrics);
    const names = new Set(cell.runs.flatMap((m) => Object.keys(m)));
    cell.median = Object.fromEntries([...names].map((name) => [name, median(cell.runs.map((m) => m[name] ?? NaN))]));
  }

  /** Marks a cell unsupported or failed (an error wins over an earlier success). */
  mark(section: Section, target: string, variant: string, status: 'unsupported' | 'error', note: string): void {
    const cell = this.cell(section, target, variant);
    cell.status = status;
    cell.note = note.split('\n')[0]?.slice(0, 300) ?? note;
  }

  /** Every cell, in insertion order. */
  all(): Cell[] {
    return [...this.#cells.values()];
  }
}

/** Looks up a cell's median metric in a result set (NaN when missing or not ok). */
export function metric(cells: readonly Cell[], section: Section, target: string, variant: string, name: string): number {
  const cell = cells.find((c) => c.section === section && c.target === target && c.variant === variant);
  return cell === undefined || cell.status !== 'ok' ? NaN : (cell.median[name] ?? NaN);
}
