/**
 * Finding and masking secrets in text: {@link findSecrets} runs the provider rules of
 * `rules.ts` (each behind its keyword prefilter) and the entropy detector, and
 * {@link redactSecrets} replaces each secret with `[REDACTED:<rule id>]`. Used before
 * anything is logged or audited, and by the policy engine's `redact` outcome and value taint.
 *
 * @module
 */
import { ENTROPY_RULE_ID, findHighEntropy } from './entropy.js';
import { SECRET_RULES, type SecretRule } from './rules.js';

/** One secret found in a text: the rule, where it is, and its value. */
export interface SecretMatch {
  /** The rule id (`github-pat`, `password-assignment`, `high-entropy`, …). */
  readonly rule: string;
  /** Offset of the secret's first character. */
  readonly start: number;
  /** Offset after its last character. */
  readonly end: number;
  readonly value: string;
}

/** Options of {@link findSecrets} and {@link redactSecrets}. */
export interface SecretScanOptions {
  /** Run the entropy detector too (default true). */
  readonly entropy?: boolean;
}

/** Texts shorter than this hold no secret any rule finds (the shortest match is a 6-character password in `pwd=`). */
const MIN_LENGTH = 10;

const COMPILED = SECRET_RULES.map((rule) => ({ rule, re: new RegExp(rule.pattern.source, `${rule.pattern.flags.replace(/[gd]/gu, '')}gd`) }));

function ruleMatches(rule: SecretRule, re: RegExp, text: string, out: SecretMatch[]): void {
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    let [start, end] = m.indices?.groups?.['secret'] ?? [m.index, m.index + m[0].length];
    const first = text[start];
    if ((first === '"' || first === "'") && text[end - 1] === first && end - start >= 2) {
      start++;
      end--;
    }
    const value = text.slice(start, end);
    if (value === '' || (rule.accept !== undefined && !rule.accept(value))) continue;
    out.push({ rule: rule.id, start, end, value });
  }
}

/** Whether `lower` holds one of the keywords (a loop, not `some`: no closure per rule per text). */
function mentions(lower: string, keywords: readonly string[]): boolean {
  for (const k of keywords) if (lower.includes(k)) return true;
  return false;
}

/** What a text with no secret gives (shared: most texts have none, and a result has many texts). */
const NO_MATCHES: readonly SecretMatch[] = Object.freeze([]);
const NO_VALUES: readonly string[] = Object.freeze([]);

/** The secrets in `text`, in order, without overlaps (a provider rule wins over the entropy detector). */
export function findSecrets(text: string, options: SecretScanOptions = {}): readonly SecretMatch[] {
  if (text.length < MIN_LENGTH) return NO_MATCHES;
  const found: SecretMatch[] = [];
  const lower = text.toLowerCase();
  for (const { rule, re } of COMPILED) {
    if (!mentions(lower, rule.keywords)) continue;
    ruleMatches(rule, re, text, found);
  }
  const ranked = found.length;
  if (options.entropy !== false) {
    for (const { start, end } of findHighEntropy(text)) found.push({ rule: ENTROPY_RULE_ID, start, end, value: text.slice(start, end) });
  }
  if (found.length === 0) return found;
  // Earlier start first; at the same start, rule order (provider rules before entropy) then longer.
  const order = new Map(found.map((m, i) => [m, i < ranked ? i : ranked + i]));
  found.sort((a, b) => a.start - b.start || (order.get(a) as number) - (order.get(b) as number) || b.end - a.end);
  const out: SecretMatch[] = [];
  for (const m of found) {
    const last = out[out.length - 1];
    if (last !== undefined && m.start < last.end) {
      // Overlap: keep a provider rule's match over the entropy one, else the first.
      if (last.rule === ENTROPY_RULE_ID && m.rule !== ENTROPY_RULE_ID) out[out.length - 1] = m;
      continue;
    }
    out.push(m);
  }
  return out;
}

/** The values of {@link findSecrets}' matches (value taint's `detectSecrets`). */
export function findSecretValues(text: string, options: SecretScanOptions = {}): readonly string[] {
  const matches = findSecrets(text, options);
  return matches.length === 0 ? NO_VALUES : matches.map((m) => m.value);
}

/** `text` with every secret replaced by `[REDACTED:<rule id>]`, and how many there were. */
export function redactSecrets(text: string, options: SecretScanOptions = {}): { text: string; count: number } {
  const matches = findSecrets(text, options);
  if (matches.length === 0) return { text, count: 0 };
  let out = '';
  let at = 0;
  for (const m of matches) {
    out += `${text.slice(at, m.start)}[REDACTED:${m.rule}]`;
    at = m.end;
  }
  return { text: out + text.slice(at), count: matches.length };
}
