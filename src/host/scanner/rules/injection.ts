/**
 * Instructions addressed to the model instead of documentation for it: instruction tags
 * (`<IMPORTANT>`, `<SYSTEM>`, chat-template tokens, "SYSTEM OVERRIDE" markers), override
 * phrases ("ignore all previous instructions", "reveal your system prompt") and persona or
 * jailbreak phrasing ("you are now …", "developer mode"). A phrase that is only mentioned
 * (quoted, detected, explained, shown as sample output) is a note (severity `low`: listed,
 * the verdict stays `pass`); a phrase that is used blocks.
 *
 * @module
 */
import { eachMatch, emit, isMention, textStrings, type AnalyzedItem } from '../analysis.js';

/** Tag names a model reads as "this is for you, and it outranks the rest". */
const INSTRUCTION_TAG = /<\s*\/?\s*(important|system|instructions?|admin|secret|hidden|override|sudo|root|developer|note[_-]?to[_-]?(?:ai|llm|assistant|model)|ai[_-]?only|assistant[_-]?only|llm|critical|mandatory|priority|context|directive|rules?|policy|command)\b[^<>]{0,80}>/iu;
/** Chat-template control tokens: no description has an honest use for them. */
const CHAT_TOKEN = /<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id)\|>|\[\/?inst\]|<<\/?sys>>|\[\/?system\]/iu;
/** A line that opens with a conversation role, forging a turn. */
const FAKE_TURN = /(?:^|\n)\s*(?:#+\s*)?(?:system|assistant|developer)\s*(?:message|prompt)?\s*:\s*\S/iu;
/** Override markers: "SYSTEM OVERRIDE", "ADMIN_OVERRIDE", "DEVELOPER MODE", delimited or not. */
const OVERRIDE_MARKER = /\b(?:system|admin|administrator|developer|root|sudo|security|emergency|god|maintenance)[ _-]?(?:override|overrides|mode enabled|mode activated)\b/u;
const AUTHORITY_HEADER = /(?:^|[\s|#[{=*-])(?:important|urgent|critical|mandatory) (?:system|admin|security|developer) (?:instruction|notice|message|directive|update|note)s?\b/u;

const OVERRIDE_VERB = String.raw`(?:ignore|disregard|forget|override|overrule|bypass|abandon|discard|neglect|set aside|throw out|do not follow|don't follow|stop following|do not obey|don't obey)`;
const DET = String.raw`(?:(?:all|any|each|every)\s+(?:of\s+)?)?(?:the\s+|your\s+|my\s+|these\s+|those\s+|its\s+)?`;
/** Qualifiers that make the object the model's own standing instructions. */
const STRONG = String.raw`(?:previous|prior|above|earlier|preceding|former|original|initial|foregoing|system|safety|security|ethical|developer|operator|built-in|standing|core)`;
const RULES = String.raw`(?:instructions?|directions?|directives?|rules?|guidelines?|guardrails?|prompts?|constraints?|polic(?:y|ies)|commands?|orders?|programming|restrictions?|safeguards?|training)`;
/** "ignore all previous instructions", "disregard the above", "forget your prior rules", "ignore your safety guidelines". */
const OVERRIDE = new RegExp(
  String.raw`\b${OVERRIDE_VERB}\s+${DET}${STRONG}(?:\s+\w+){0,2}?\s+${RULES}\b|\b${OVERRIDE_VERB}\s+(?:all\s+(?:of\s+)?)?your\s+(?:\w+\s+)?${RULES}\b|\b(?:ignore|disregard|forget)\s+(?:all\s+|everything\s+)?(?:of\s+)?(?:the\s+)?(?:above|previous|prior|preceding|foregoing)\b(?!\s+(?:step|page|result|value|item|line|section|call|version)s?\b)`,
  'u',
);
/** "ignore the user's request and instead …": the model turned against its user. */
const AGAINST_USER = /\b(?:ignore|disregard|override)\s+(?:what\s+)?(?:the\s+)?user(?:'s|s')?\s+(?:actual\s+|original\s+)?(?:request|question|instructions?|prompt|wishes|intent|asks?)\b/u;
/** Weaker: "ignore all instructions", "disregard any rules" (a linter may say this honestly). */
const OVERRIDE_WEAK = new RegExp(String.raw`\b(?:ignore|disregard|forget)\s+(?:all|any)\s+(?:other\s+)?(?:instructions|guidelines|directions)\b`, 'u');
/** "reveal your system prompt", "print the hidden instructions". */
const REVEAL = /\b(?:reveal|print|output|show|leak|disclose|repeat|display|dump|echo|expose|share|send)\s+(?:me\s+|us\s+)?(?:back\s+)?(?:your|the|its)\s+(?:full\s+|entire\s+|hidden\s+|original\s+|initial\s+|secret\s+|complete\s+)*(?:system\s+prompt|system\s+message|system\s+instructions|hidden\s+prompt|initial\s+prompt|developer\s+(?:message|prompt)|instructions\s+(?:above|verbatim))\b/u;
/** "follow these new instructions", "your new instructions are". */
const NEW_ORDERS = /\b(?:follow|obey|execute|comply with)\s+(?:these|the following|my|the|our)\s+(?:new|real|actual|updated|hidden|secret)\s+(?:instructions?|ones|rules|orders|commands)\b|\b(?:your|the) (?:new|real|actual|true) (?:instructions|orders|task|purpose|goal) (?:is|are)\b|\bcomply with the (?:request|instructions?) (?:embedded|hidden|below|encoded)\b/u;
/** Persona and jailbreak phrasing. */
const PERSONA_STRONG = /\b(?:jailbr(?:eak|oken)\w*|do anything now|dan mode|developer mode|god mode|unfiltered mode|no longer (?:bound|restricted|limited|constrained) by|(?:free|freed|liberated) from (?:all |any |your )?(?:rules|restrictions|guidelines|constraints|policies)|without (?:any )?(?:ethical|moral|safety|content) (?:restrictions|limits|guidelines|filters|constraints)|you have no (?:rules|restrictions|limits|guidelines))\b/u;
const PERSONA_WEAK = /\b(?:you are now|from now on,? you (?:are|will)|pretend (?:to be|you are|that you)|act as (?:if you (?:were|are)|an? (?:unrestricted|unfiltered|uncensored|evil|malicious|rogue))|roleplay as|role-play as|your (?:true|real|hidden) (?:purpose|identity|self))\b/u;

/** Runs the instruction-tag, override and persona rules. */
export function checkInjection(target: AnalyzedItem): void {
  for (const s of textStrings(target)) {
    const tag = INSTRUCTION_TAG.exec(s.text);
    if (tag !== null) {
      emit(target, { rule: 'instruction-tag/tag', family: 'instruction-tag', severity: 'high', confidence: 'medium', blocking: false, message: `instruction tag ${tag[0]} marks text as orders for the model`, evidence: tag[0], path: s.path });
    }
    const token = CHAT_TOKEN.exec(s.text);
    if (token !== null) {
      emit(target, { rule: 'instruction-tag/chat-template-token', family: 'instruction-tag', severity: 'critical', confidence: 'high', blocking: true, message: `chat-template control token ${token[0]}: forges a conversation turn`, evidence: token[0], path: s.path });
    }
    const turn = FAKE_TURN.exec(s.text);
    if (turn !== null) emit(target, { rule: 'instruction-tag/fake-turn', family: 'instruction-tag', severity: 'high', confidence: 'medium', blocking: false, message: 'a line that opens like a system or assistant turn', evidence: s.text.slice(turn.index, turn.index + 120), path: s.path });
    const marker = OVERRIDE_MARKER.exec(s.norm) ?? AUTHORITY_HEADER.exec(s.norm);
    if (marker !== null && !isMention(s.norm, marker.index, target.allText)) {
      emit(target, { rule: 'instruction-tag/override-marker', family: 'instruction-tag', severity: 'critical', confidence: 'high', blocking: true, message: `"${marker[0].trim()}" claims an authority above the user's`, evidence: marker[0], path: s.path });
    }
  }
  const phrase = (rule: string, re: RegExp, message: string): void =>
    eachMatch(target, re, (s, sentence, m) => {
      const mention = isMention(sentence, m.index, target.allText);
      emit(target, {
        rule,
        family: 'override',
        severity: mention ? 'low' : 'critical',
        confidence: mention ? 'low' : 'high',
        blocking: !mention,
        message: mention ? `${message} (quoted or described, not addressed to the model)` : message,
        evidence: sentence,
        path: s.path,
      });
    });
  phrase('override/ignore-instructions', OVERRIDE, 'tells the model to drop its instructions');
  eachMatch(target, OVERRIDE_WEAK, (s, sentence) => {
    if (target.hits.some((h) => h.rule === 'override/ignore-instructions' && h.path === s.path)) return;
    emit(target, { rule: 'override/ignore-any-instructions', family: 'override', severity: 'high', confidence: 'medium', blocking: false, message: 'tells the model to ignore instructions', evidence: sentence, path: s.path });
  });
  phrase('override/against-user', AGAINST_USER, "tells the model to ignore its user's request");
  phrase('override/reveal-system-prompt', REVEAL, 'tells the model to reveal its system prompt');
  phrase('override/new-instructions', NEW_ORDERS, 'substitutes new instructions for the real ones');
  eachMatch(target, PERSONA_STRONG, (s, sentence, m) => {
    const mention = isMention(sentence, m.index, target.allText);
    emit(target, { rule: 'persona/jailbreak', family: 'persona', severity: mention ? 'low' : 'critical', confidence: mention ? 'low' : 'high', blocking: !mention, message: 'jailbreak phrasing: frees the model from its rules', evidence: sentence, path: s.path });
  });
  eachMatch(target, PERSONA_WEAK, (s, sentence, m) => {
    const mention = isMention(sentence, m.index, target.allText);
    emit(target, { rule: 'persona/role-change', family: 'persona', severity: mention ? 'low' : 'high', confidence: 'medium', blocking: false, message: 'gives the model a new persona', evidence: sentence, path: s.path });
  });
}
