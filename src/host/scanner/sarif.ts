/**
 * The rule catalogue and the SARIF 2.1.0 form of a scan report (for code-scanning uploads in
 * a server author's CI), plus the `--fail-on` test.
 *
 * @see https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html
 * @module
 */
import { SEVERITIES, type Finding, type RuleFamily, type ScanReport, type Severity } from './types.js';

/** One rule of the catalogue. */
export interface RuleInfo {
  readonly id: string;
  readonly family: RuleFamily;
  /** Blocks by itself (some rules block only in some contexts; see the finding's `blocking`). */
  readonly blocks: 'always' | 'in context' | 'never';
  readonly summary: string;
}

const r = (id: string, blocks: RuleInfo['blocks'], summary: string): RuleInfo => ({ id, family: id.split('/')[0] === 'command' ? 'exfiltration' : (id.split('/')[0] as RuleFamily), blocks, summary });

/** Every rule the scanner has. */
export const RULES: readonly RuleInfo[] = Object.freeze([
  r('hidden-unicode/tag-block', 'always', 'Unicode tag characters (invisible ASCII), decoded and shown'),
  r('hidden-unicode/bidi-control', 'in context', 'explicit bidirectional controls; overrides block'),
  r('hidden-unicode/zero-width', 'never', 'zero-width characters outside emoji and joining scripts'),
  r('hidden-unicode/private-use', 'never', 'private-use code points'),
  r('hidden-unicode/variation-selectors', 'in context', 'runs of variation selectors (byte smuggling); 8 or more block'),
  r('hidden-unicode/ansi-escape', 'always', 'ANSI escape sequences'),
  r('hidden-unicode/control-character', 'never', 'other control characters'),
  r('hidden-unicode/mixed-script-name', 'never', 'a name mixing Latin with look-alike letters'),
  r('instruction-tag/tag', 'never', '<IMPORTANT>, <SYSTEM> and similar instruction tags'),
  r('instruction-tag/chat-template-token', 'always', 'chat-template control tokens (<|im_start|>, [INST], <<SYS>>)'),
  r('instruction-tag/fake-turn', 'never', 'a line opening like a system or assistant turn'),
  r('instruction-tag/override-marker', 'in context', '"SYSTEM OVERRIDE"-style authority markers, unless quoted or described'),
  r('override/ignore-instructions', 'in context', '"ignore all previous instructions" used as an order (a mention warns)'),
  r('override/ignore-any-instructions', 'never', '"ignore all instructions" without a qualifier'),
  r('override/against-user', 'in context', '"ignore the user\'s request" used as an order'),
  r('override/reveal-system-prompt', 'in context', '"reveal your system prompt" used as an order'),
  r('override/new-instructions', 'in context', '"follow these new instructions" used as an order'),
  r('persona/jailbreak', 'in context', 'jailbreak phrasing (developer mode, no longer bound by rules)'),
  r('persona/role-change', 'never', '"you are now …" persona changes'),
  r('concealment/hide-from-user', 'never', 'asks the model to keep something from the user'),
  r('concealment/deceive-user', 'never', 'asks the model to mislead the user'),
  r('concealment/covert-action', 'never', 'actions done secretly or silently'),
  r('concealment/consent-bypass', 'never', 'consent taken for granted (automatic opt-in)'),
  r('markup-smuggling/html-comment', 'never', 'HTML comments (hidden when rendered)'),
  r('markup-smuggling/markdown-comment', 'never', 'Markdown comments'),
  r('markup-smuggling/invisible-element', 'never', 'markup styled invisible'),
  r('markup-smuggling/padding', 'never', 'blank padding that pushes text out of view'),
  r('sensitive/credential-file', 'never', 'names a credential or key file (~/.ssh, .env, ~/.aws/credentials, ...)'),
  r('sensitive/harvesting', 'never', 'gathers sensitive data as a side effect'),
  r('sensitive/personal-data', 'never', 'handles highly sensitive personal data (SSN, card numbers)'),
  r('secret/embedded', 'never', 'a provider key, token or private key embedded in the text'),
  r('secret/assignment', 'never', 'a credential assigned a literal high-entropy value'),
  r('exfiltration/sensitive-to-outsider', 'in context', 'sensitive data moved to an outside destination; to a hostile one blocks'),
  r('exfiltration/data-to-outsider', 'never', 'data moved to an outside destination'),
  r('exfiltration/markdown-beacon', 'never', 'a Markdown image or link whose URL is filled with data'),
  r('exfiltration/exfiltrate', 'in context', 'says it exfiltrates, unless described'),
  r('command/dangerous-shell', 'never', 'download-and-run, reverse shell or destructive commands (block when decoded from a payload)'),
  r('coercion/read-sensitive-first', 'in context', 'requires reading a credential file before or while using the tool'),
  r('covert-parameter/steered', 'in context', 'text steers data into a side-channel parameter; sensitive data blocks'),
  r('covert-parameter/asks-for-context', 'never', 'a parameter asks for the conversation, instructions or private files'),
  r('covert-parameter/unexplained', 'never', 'an unexplained side-channel parameter'),
  r('shadowing/cross-server-reference', 'never', "refers to another server's tool"),
  r('shadowing/impersonation', 'never', "the same name and a near-duplicate description as another server's tool"),
  r('shadowing/confusable-name', 'always', "a look-alike of another server's tool name"),
  r('shadowing/namespaced-name', 'never', "a name that reads as another server's tool in namespaced form (real__create_issue)"),
  r('shadowing/look-alike-name', 'never', "another server's tool name up to case and separators, or one edit away with a near-duplicate description"),
  r('shadowing/behaviour-override', 'never', 'claims to change how other tools behave'),
  r('preference/manipulation', 'never', 'pushes the model to prefer this tool over any other'),
  r('capability-mismatch/undeclared-capability', 'never', 'a pure function that talks about files, network, credentials or the shell'),
  r('encoded-payload/decoded-instructions', 'in context', 'base64/hex/percent payloads that decode to flagged text; high-severity content blocks'),
  r('combination/hidden-harm', 'always', 'hiding plus a harmful act in one item'),
  r('combination/layered-hiding', 'always', 'several ways of hiding in one item'),
  r('combination/read-and-send', 'always', 'reads sensitive data and sends data out'),
  r('combination/mismatch-harm', 'always', 'a pure function that reaches for credentials or sends data out'),
  r('persona/privileged-mode', 'in context', '"you are now in admin mode" used as a claim (a mention is a note)'),
  r('directive/tool-call', 'never', 'orders the model to run a tool on another server; in a result, also a call written out with its arguments'),
  r('directive/addressed-to-agent', 'never', 'text addressed to the AI reading it (results only)'),
  r('solicit/credentials', 'never', 'asks the model for credentials (results only)'),
  r('solicit/system-prompt', 'never', 'asks the model for its system prompt (results only)'),
  r('markup-smuggling/letter-spaced', 'never', 'letters spaced out one by one to hide a trigger word'),
  r('limits/unread', 'always', 'part of a definition was not read (nested too deep, too many strings, too long, a cycle): blocked, never passed unread'),
  r('combination/shadowing-harm', 'always', "steers another server's tools while hiding or doing harm"),
]);

/** True when `severity` is at least `threshold`. */
export function meetsSeverity(severity: Severity, threshold: Severity): boolean {
  return SEVERITIES.indexOf(severity) >= SEVERITIES.indexOf(threshold);
}

const LEVEL: Readonly<Record<Severity, 'note' | 'warning' | 'error'>> = { low: 'note', medium: 'warning', high: 'warning', critical: 'error' };

/** The SARIF level of a non-blocking finding of `severity` (a blocking one is `error`). */
export function sarifLevel(severity: Severity): 'note' | 'warning' | 'error' {
  return LEVEL[severity];
}

/**
 * A SARIF 2.1.0 log of `report`. `artifact` is the file the definitions came from (for
 * `--tools FILE`) or a `mcp://<server>` pseudo-URI; the JSON path goes in the logical location.
 */
export function toSarif(report: ScanReport, options: { readonly version: string; readonly artifact?: (f: Finding) => string }): Record<string, unknown> {
  const used = [...new Set(report.items.flatMap((i) => i.findings.map((f) => f.rule)))];
  const rules = RULES.filter((x) => used.includes(x.id));
  const results = report.items.flatMap((i) =>
    i.findings.map((f) => ({
      ruleId: f.rule,
      ruleIndex: rules.findIndex((x) => x.id === f.rule),
      level: f.blocking ? 'error' : sarifLevel(f.severity),
      message: { text: `${f.location.kind} ${f.location.item}: ${f.message}. Evidence: ${f.evidence}` },
      locations: [
        {
          physicalLocation: { artifactLocation: { uri: options.artifact?.(f) ?? `mcp://${encodeURIComponent(f.location.server ?? 'server')}` } },
          logicalLocations: [{ fullyQualifiedName: `${f.location.server ?? ''}/${f.location.kind}/${f.location.item}${f.location.path.slice(1)}`, kind: 'member' }],
        },
      ],
      properties: { severity: f.severity, confidence: f.confidence, blocking: f.blocking, family: f.family, path: f.location.path },
    })),
  );
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'switchboard-scan', version: options.version, informationUri: 'https://github.com/switchboard-mcp/switchboard', rules: rules.map((x) => ({ id: x.id, shortDescription: { text: x.summary }, properties: { family: x.family, blocks: x.blocks } })) } },
        results,
      },
    ],
  };
}
