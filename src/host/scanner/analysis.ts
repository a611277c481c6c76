/**
 * What every rule works on: an item's strings, each with its raw text, its normalised text
 * and sentences, plus a sink that turns a match into a {@link Finding} with the item's
 * location. Also the one context test most phrase rules share: is a phrase *used* (an
 * instruction to the model) or only *mentioned* (quoted, described, detected, shown as sample
 * output)? A used phrase may block; a mentioned one only warns.
 *
 * @module
 */
import type { ScanItem, VisibleString } from './strings.js';
import { normalize, normalizedSentences, safeEvidence } from './text.js';
import type { Finding, PeerTool, RuleFamily } from './types.js';

/** One string ready for the rules. */
export interface AnalyzedString extends VisibleString {
  /** {@link normalize}d text. */
  readonly norm: string;
  /** Normalised sentences. */
  readonly sentences: readonly string[];
}

/** What a rule emits: a {@link Finding} located by the JSON path of its string. */
export interface Hit extends Omit<Finding, 'location'> {
  /** JSON path of the string (default: the string the rule was looking at). */
  readonly path: string;
}

/** An item with analysed strings and what is known around it. */
export interface AnalyzedItem {
  readonly item: ScanItem;
  readonly server: string | undefined;
  readonly strings: readonly AnalyzedString[];
  /** All free text of the item (name excluded), normalised and joined: for rules that read across fields. */
  readonly allText: string;
  /** The names of the tools of the item's own server (lower case). */
  readonly ownNames: ReadonlySet<string>;
  readonly peers: readonly PeerTool[];
  readonly hits: Hit[];
  /** What the text is: a listed definition, or what a server answered or asked at run time (results, errors, requests). */
  readonly context: TextContext;
}

/** Where a text comes from: a `definition`, or a `result` (tool results, errors, a server's sampling and elicitation requests). */
export type TextContext = 'definition' | 'result';

/** Builds the analysed view of an item. */
export function analyze(item: ScanItem, server: string | undefined, ownNames: ReadonlySet<string>, peers: readonly PeerTool[], context: TextContext = 'definition'): AnalyzedItem {
  const strings = item.strings.map((s) => {
    // An identifier is read as words; a key that already holds spaces is a phrase, read as written
    // (`~/.ssh/id_rsa` inside it stays a path).
    const text = (s.role === 'key' || s.role === 'property' || s.role === 'name') && !/\s/u.test(s.text) ? identifierWords(s.text) : s.text;
    return { ...s, norm: normalize(text), sentences: normalizedSentences(text) };
  });
  const allText = strings
    .filter((s) => s.role !== 'name' && s.role !== 'property' && s.role !== 'key')
    .map((s) => s.norm)
    .join(' \n ');
  return { item, server, strings, allText, ownNames, peers, hits: [], context };
}

/** Records a hit (once per rule and path). */
export function emit(target: AnalyzedItem, hit: Omit<Hit, 'evidence'> & { readonly evidence: string }): void {
  if (target.hits.some((h) => h.rule === hit.rule && h.path === hit.path)) return;
  target.hits.push({ ...hit, evidence: safeEvidence(hit.evidence) });
}

/** Turns hits into findings with the item's location. */
export function toFindings(target: AnalyzedItem): Finding[] {
  return target.hits.map((h) => ({
    rule: h.rule,
    family: h.family,
    severity: h.severity,
    confidence: h.confidence,
    blocking: h.blocking,
    message: h.message,
    evidence: h.evidence,
    location: { kind: target.item.kind, server: target.server, item: target.item.name, path: h.path },
  }));
}

/** An identifier read as words: `ignore_allPrevious-rules` → `ignore all Previous rules`. */
export function identifierWords(id: string): string {
  return id.replace(/([a-z])([A-Z])/gu, '$1 $2').replace(/[_\-.]+/gu, ' ');
}

/** A key or property name that reads like a phrase (a space, or four words or more), not an identifier. */
function phraseLike(s: AnalyzedString): boolean {
  return /\s/u.test(s.text) || s.norm.split(' ').length >= 4;
}

/**
 * Free-text strings (descriptions, titles, instructions, prompt texts, enum/default/example
 * values, every other value of the definition, and keys, property names or item names that read
 * like a phrase: `ignore_all_previous_instructions` is read as the words it spells).
 */
export function textStrings(target: AnalyzedItem): readonly AnalyzedString[] {
  return target.strings.filter((s) => (s.role === 'key' || s.role === 'property' || s.role === 'name' ? phraseLike(s) : s.role !== 'uri'));
}

/** Words before a phrase that make it a mention: detecting, analysing, explaining, quoting, testing for it. */
const MENTION_CUES =
  /\b(detect\w*|identif\w*|analy[sz]\w*|classif\w*|flag\w*|checks?|checking|scan\w*|explain\w*|describ\w*|documentation|documents|examples? of|such as|e\.g\.|like|attempt\w*|tries to|try to|trying to|asks? (?:the |an |your )?(?:agent|model|assistant|ai|llm|you) to|whether|guard\w*|filter\w*|block\w*|prevent\w*|protect\w*|sanitiz\w*|red[- ]team\w*|tests? for|testing|report\w*|monitor\w*|recogni[sz]\w*|warns?|refus\w*|resist\w*|that (?:say|says|tell|tells|contain|contains)|(?:prompts|inputs|messages|texts|strings|requests|payloads|attacks|content) (?:that|which|like|containing))\b/u;

/** Sentence-initial labels of sample output, after which a phrase is data, not an instruction. */
const SAMPLE_LABEL = /^(?:[\w ]{0,40}\b)?(?:sample|example|expected|mock|canned|fake|dummy|test|illustrative|simulated|placeholder)(?: \w+){0,2} (?:response|output|reply|replies|answer|text|string|data|input|value|result|content)s?\s*[:=-]/u;
const RETURNS_LABEL = /\breturns? (?:\w+ ){0,3}(?:text|string|strings|content|data|phrases?)\s*:/u;
const DISCLAIMER = /\b(?:(?:is|are) (?:only )?(?:illustrative|an example|examples|sample|samples|test data|not an instruction|not instructions|never executed|not followed)|not an instruction|for (?:testing|illustration) only)\b/u;

/**
 * True when the phrase at `index` of `sentence` is mentioned rather than used: inside
 * quotes, after a mention cue or a sample-output label in the same sentence, or the item
 * says its text is illustrative.
 */
export function isMention(sentence: string, index: number, allText: string): boolean {
  const before = sentence.slice(0, index);
  const quotes = (before.replace(/`{3,}/gu, '').match(/["'‘’“”`«»]/gu) ?? []).length;
  if (quotes % 2 === 1) return true;
  if (MENTION_CUES.test(before)) return true;
  if (SAMPLE_LABEL.test(before) || RETURNS_LABEL.test(before)) return true;
  return DISCLAIMER.test(allText);
}

/** Finds `re` in each sentence of each text string and calls `on` with the match. `re` must not be global. */
export function eachMatch(target: AnalyzedItem, re: RegExp, on: (s: AnalyzedString, sentence: string, match: RegExpExecArray) => void): void {
  for (const s of textStrings(target)) {
    for (const sentence of s.sentences) {
      const m = re.exec(sentence);
      if (m !== null) on(s, sentence, m);
    }
  }
}

/** Has any hit of one of `families`. */
export function hasFamily(target: AnalyzedItem, ...families: RuleFamily[]): boolean {
  return target.hits.some((h) => families.includes(h.family));
}
