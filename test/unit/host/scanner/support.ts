/**
 * Helpers of the scanner tests: scan one tool and read its verdict and rule ids.
 *
 * @module
 */
import { scanTools } from '../../../../src/host/scanner/scan.js';
import type { ItemReport, PeerTool } from '../../../../src/host/scanner/types.js';

/** A tool definition with a description (and optional schema). */
export function tool(name: string, description: string, inputSchema: Record<string, unknown> = { type: 'object' }): Record<string, unknown> {
  return { name, description, inputSchema };
}

/** Scans one definition. */
export function scanOne(definition: unknown, options: { server?: string; peers?: PeerTool[] } = {}): ItemReport {
  return scanTools([definition], { server: options.server ?? 'test', ...(options.peers !== undefined ? { peers: options.peers } : {}) }).items[0] as ItemReport;
}

/** The rule ids of one scan. */
export function rules(report: ItemReport): string[] {
  return report.findings.map((f) => f.rule);
}

/** The verdict of a description-only tool. */
export function verdictOf(description: string, name = 'some_tool'): ItemReport['verdict'] {
  return scanOne(tool(name, description)).verdict;
}
