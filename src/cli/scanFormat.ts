/**
 * How `switchboard scan` prints a report: `human` (one block per flagged item, worst first,
 * then a summary), `json` (the report as it is) or `sarif` (SARIF 2.1.0), and the exit-code
 * test of `--fail-on`.
 *
 * @module
 */
import { meetsSeverity, toSarif } from '../host/scanner/sarif.js';
import { SEVERITIES, type ScanReport, type Severity } from '../host/scanner/types.js';
import { UsageError } from './args.js';

/** The output formats. */
export type ScanFormat = 'human' | 'json' | 'sarif';

/** `--fail-on`: a severity, or `block` (default: any blocking finding), or `never`. */
export type FailOn = Severity | 'block' | 'never';

/** Reads `--format`. */
export function scanFormat(value: unknown): ScanFormat {
  if (value === undefined) return 'human';
  if (value === 'human' || value === 'json' || value === 'sarif') return value;
  throw new UsageError(`invalid --format ${String(value)} (human, json or sarif)`);
}

/** Reads `--fail-on`. */
export function failOn(value: unknown): FailOn {
  if (value === undefined) return 'block';
  if (value === 'block' || value === 'never' || (SEVERITIES as readonly unknown[]).includes(value)) return value as FailOn;
  throw new UsageError(`invalid --fail-on ${String(value)} (${SEVERITIES.join(', ')}, block or never)`);
}

/** True when the report has a finding that `threshold` fails on. */
export function fails(report: ScanReport, threshold: FailOn): boolean {
  if (threshold === 'never') return false;
  const findings = report.items.flatMap((i) => i.findings);
  return threshold === 'block' ? findings.some((f) => f.blocking) : findings.some((f) => meetsSeverity(f.severity, threshold));
}

const rank = (v: string): number => (v === 'block' ? 0 : v === 'warn' ? 1 : 2);

/** The human report. */
export function renderHuman(report: ScanReport, problems: readonly string[] = []): string {
  const lines: string[] = [];
  const flagged = [...report.items].filter((i) => i.verdict !== 'pass').sort((a, b) => rank(a.verdict) - rank(b.verdict) || SEVERITIES.indexOf(b.severity ?? 'low') - SEVERITIES.indexOf(a.severity ?? 'low'));
  for (const item of flagged) {
    lines.push(`${item.verdict.toUpperCase()}  ${item.kind} ${item.server === undefined ? '' : `${item.server}/`}${item.item}`);
    for (const f of item.findings) {
      lines.push(`  ${f.blocking ? '✖' : '!'} ${f.rule} [${f.severity}, ${f.confidence} confidence] at ${f.location.path}`);
      lines.push(`      ${f.message}`);
      lines.push(`      evidence: ${f.evidence}`);
    }
  }
  for (const p of problems) lines.push(`NOT SCANNED  ${p}`);
  const { pass, warn, block } = report.counts;
  lines.push(`${report.items.length} item${report.items.length === 1 ? '' : 's'} scanned: ${block} blocked, ${warn} with warnings, ${pass} clean`);
  return `${lines.join('\n')}\n`;
}

/** The report in `format`. */
export function renderReport(report: ScanReport, format: ScanFormat, options: { readonly version: string; readonly artifact?: string; readonly problems?: readonly string[] }): string {
  if (format === 'json') return `${JSON.stringify({ ...report, ...(options.problems !== undefined && options.problems.length > 0 ? { problems: options.problems } : {}) }, null, 2)}\n`;
  if (format === 'sarif') {
    const artifact = options.artifact;
    return `${JSON.stringify(toSarif(report, { version: options.version, ...(artifact !== undefined ? { artifact: () => artifact } : {}) }), null, 2)}\n`;
  }
  return renderHuman(report, options.problems);
}
