/**
 * What the scanner says about a pending change (issue #32: the person sees what the scanner
 * sees). `switchboard pins diff` and the console's review page show these findings next to the
 * diff; approving a change that has findings needs an explicit acknowledgement
 * ({@link UnacknowledgedFindingsError} otherwise), and the approval's audit record names the
 * acknowledged finding ids ({@link findingId}).
 *
 * The pending definition is scanned alone with the gateway's scanner rules ({@link scanServer}),
 * as the gateway scans an item called by a name it never listed: shadowing against other
 * servers' tools is judged at list time, not here.
 *
 * @module
 */
import type { ItemKind } from '../../protocol/model/common.js';
import { McpError, McpErrorCode } from '../../util/errors.js';
import { scanServer } from '../scanner/scan.js';
import type { Finding, ServerSnapshot } from '../scanner/types.js';

/** The snapshot field each kind is scanned under. */
const FIELD: Readonly<Record<ItemKind, 'tools' | 'prompts' | 'resources' | 'templates'>> = { tool: 'tools', prompt: 'prompts', resource: 'resources', template: 'templates' };

/**
 * The scanner's findings for one pending definition of server `server` (`instructions`: the
 * changed server instructions, a string). Never throws: a definition the scanner cannot read
 * is reported by the scanner itself as a finding.
 */
export function pendingFindings(server: string, kind: ItemKind | 'instructions', definition: unknown): readonly Finding[] {
  const snapshot: ServerSnapshot = kind === 'instructions' ? { server, instructions: typeof definition === 'string' ? definition : JSON.stringify(definition) } : { server, [FIELD[kind]]: [definition] };
  return scanServer(snapshot).items.flatMap((item) => item.findings);
}

/** A finding's id in an audit record: its rule and where it is (`override/ignore-previous@$.description`). */
export function findingId(finding: Finding): string {
  return `${finding.rule}@${finding.location.path}`;
}

/** The findings as lines under a diff: rule id, severity (BLOCKING when it alone blocks the item), where, and the evidence. */
export function formatFindings(findings: readonly Finding[], indent = '  '): string {
  if (findings.length === 0) return `${indent}scanner: no findings`;
  const lines = [`${indent}scanner: ${findings.length} finding(s) in the new definition`];
  for (const f of findings) lines.push(`${indent}  ${f.rule}  ${f.severity}${f.blocking ? ' BLOCKING' : ''}  at ${f.location.path}: ${f.message}`, `${indent}    evidence: ${JSON.stringify(f.evidence)}`);
  return lines.join('\n');
}

/** An approval refused because the changes have scanner findings nobody acknowledged. */
export class UnacknowledgedFindingsError extends McpError {
  /** The findings of each refused item key. */
  readonly findings: Readonly<Record<string, readonly Finding[]>>;

  constructor(server: string, findings: Readonly<Record<string, readonly Finding[]>>) {
    const named = Object.entries(findings).map(([key, list]) => `${key} (${[...new Set(list.map((f) => f.rule))].join(', ')})`);
    super(McpErrorCode.Denied, `${server}: not approved: the scanner has findings in ${named.join('; ')}; read them (\`switchboard pins diff ${server}\`) and approve again acknowledging them (--ack-findings)`);
    this.findings = findings;
  }
}
