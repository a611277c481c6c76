/**
 * Combinations that block although each part only warns: a way of hiding (hidden Unicode,
 * markup, an instruction tag, concealment, an encoded payload) together with a harmful act
 * (sensitive data, exfiltration, coercion, a covert parameter, an override, a secret), or two
 * harmful acts together (reading credentials and sending data out), or a pure function that
 * does either. Honest documentation rarely hides and almost never pairs credentials with an
 * outside destination, so these stay near zero false positives.
 *
 * @module
 */
import { emit, type AnalyzedItem } from '../analysis.js';
import type { RuleFamily } from '../types.js';

const STEALTH: readonly RuleFamily[] = ['hidden-unicode', 'markup-smuggling', 'instruction-tag', 'concealment', 'encoded-payload'];
const HARM: readonly RuleFamily[] = ['sensitive', 'exfiltration', 'coercion', 'covert-parameter', 'override', 'secret', 'persona'];

/** Adds the combination findings (run after every other rule). */
export function checkCombinations(target: AnalyzedItem): void {
  const families = new Set(target.hits.filter((h) => h.severity !== 'low' && h.confidence !== 'low').map((h) => h.family));
  const present = (list: readonly RuleFamily[]): RuleFamily[] => list.filter((f) => families.has(f));
  const stealth = present(STEALTH);
  const harm = present(HARM);
  const first = (list: readonly RuleFamily[]) => target.hits.find((h) => list.includes(h.family));
  const combine = (rule: string, message: string, parts: readonly RuleFamily[]): void => {
    const evidence = parts.map((f) => first([f])?.evidence ?? f).join(' | ');
    emit(target, { rule, family: 'combination', severity: 'critical', confidence: 'high', blocking: true, message, evidence, path: first(parts)?.path ?? '$' });
  };
  if (stealth.length > 0 && harm.length > 0) {
    combine('combination/hidden-harm', `hides itself (${stealth.join(', ')}) while asking for something harmful (${harm.join(', ')})`, [stealth[0] as RuleFamily, harm[0] as RuleFamily]);
  } else if (stealth.length >= 2 && stealth.some((f) => f !== 'hidden-unicode')) {
    combine('combination/layered-hiding', `hides itself in several ways (${stealth.join(', ')})`, stealth);
  }
  const sensitiveAndOut = families.has('exfiltration') && (families.has('sensitive') || families.has('secret') || families.has('coercion'));
  if (sensitiveAndOut) combine('combination/read-and-send', 'reads sensitive data and sends data out', ['sensitive', 'exfiltration']);
  if (families.has('capability-mismatch') && (families.has('sensitive') || families.has('exfiltration') || families.has('covert-parameter') || families.has('coercion'))) {
    combine('combination/mismatch-harm', 'a pure function that reaches for credentials or sends data out', ['capability-mismatch', ...present(['sensitive', 'exfiltration', 'covert-parameter', 'coercion'])]);
  }
  if (families.has('shadowing') && (stealth.length > 0 || harm.length > 0)) {
    combine('combination/shadowing-harm', 'steers another server\'s tools while hiding or doing harm', ['shadowing', ...stealth, ...harm]);
  }
}
