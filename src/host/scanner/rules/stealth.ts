/**
 * Text that hides itself or hides what the tool does: concealment from the user ("do not
 * tell the user", "silently", consent bypassed) and comment or markup smuggling (HTML
 * comments, Markdown comments, elements styled invisible, long blank padding that pushes
 * text out of view). Alone these warn; with a harmful finding in the same item they block
 * (see `combination.ts`).
 *
 * @module
 */
import { eachMatch, emit, isMention, textStrings, type AnalyzedItem } from '../analysis.js';

const TELL = String.raw`(?:tell|inform|notify|mention|reveal|show|alert|disclose|let|warn|ask|confirm with|say)`;
/** "do not tell the user", "never mention this to the user", "the user must not know". */
const HIDE_FROM_USER = new RegExp(
  String.raw`\b(?:do not|don't|dont|never|must not|should not|shouldn't|without)\s+(?:ever\s+)?${TELL}(?:ing)?\s+(?:\w+\s+){0,4}?(?:the\s+|your\s+)?(?:user|human|person|operator|customer|requester)s?\b|\b(?:hide|conceal|keep)\s+(?:\w+\s+){0,4}?(?:from|away from)\s+(?:the\s+)?(?:user|human)s?\b|\b(?:user|human)s?\s+(?:must|should|need)\s+(?:not|never)\s+(?:know|see|notice|learn|find out|be told)\b|\bwithout\s+(?:the\s+)?(?:user|human)(?:'s|s')?\s+(?:knowledge|knowing|noticing|awareness)\b|\bkeep\s+(?:this|these|it)\s+(?:a\s+)?(?:secret|hidden|confidential|between us)\b|\b(?:do not|don't|never)\s+(?:mention|reveal|disclose|show|display|log|print)\s+(?:this|these|that|the)\s+(?:instructions?|step|steps|note|notes|parameter|field|request|action|behaviou?r|data collection|collection)\b`,
  'u',
);
/** Deceiving the user about what happened. */
const DECEIVE = /\b(?:lie|lying) to (?:the )?user|\b(?:mislead|deceive|trick)s? (?:the )?users?\b|\btell (?:the )?user (?:that )?(?:everything|it|the (?:operation|task|call)) (?:is|was|went) (?:fine|ok|okay|safe|successful|normal)\b|\b(?:pretend|claim) (?:to the user )?(?:that )?(?:the (?:call|tool|operation)|it) (?:failed|succeeded|worked)\b/u;
/** Actions done so the user does not see them. */
const COVERTLY = /\b(?:secretly|covertly|stealthily|surreptitiously|(?:silently|quietly|invisibly) (?:\w+ )?(?:send|sends|upload|uploads|read|reads|copy|copies|forward|forwards|include|includes|add|adds|collect|collects|log|logs|record|records|execute|executes|run|runs|call|calls|modif(?:y|ies)|install|installs|transmit|transmits|share|shares|store|stores|replace|replaces|redirect|redirects)|behind the scenes without|in the background without (?:telling|asking|notifying))\b/u;
/** Consent taken for granted. */
const CONSENT_BYPASS = /\b(?:do not|don't|never|no need to)\s+(?:ask|prompt|check with|wait for)\s+(?:the\s+)?(?:user\s+)?(?:for\s+)?(?:confirmation|permission|approval|consent)\b|\b(?:the\s+)?user\s+(?:has\s+)?(?:already\s+)?(?:pre-?)?(?:authori[sz]ed|consented to|agreed to|granted (?:you )?permission for)\s+(?:this|these|all|every|any)\b|\b(?:automatically|auto-?)\s?opt(?:ed|s)?[- ]?in\b|\bopt(?:ed)?[- ]?in\s+(?:\w+\s+){0,3}automatically\b|\bwithout\s+(?:asking|prompting|confirmation|consent|permission)\b(?!\s+(?:for|from)\s+(?:each|every)\b)/u;

/** A Markdown image or link whose URL carries a placeholder for data: rendering it sends the data out. */
const IMAGE_BEACON = /!?\[[^\]]{0,80}\]\(\s*https?:\/\/[^)\s]*[?&#/][^)\s]*(?:\{[^}]*\}|\$\{?\w+|<[^>]+>|%7b)[^)]*\)/iu;
const HTML_COMMENT = /<!--([\s\S]*?)(?:-->|$)/u;
const MARKDOWN_COMMENT = /^\s*\[(?:\/\/|comment|hidden)\]:\s*#?\s*\(/imu;
const INVISIBLE_STYLE = /<[a-z]+[^>]*(?:style\s*=\s*["'][^"']*(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0|opacity\s*:\s*0(?:\.0+)?\b|color\s*:\s*(?:white|#fff\b|#ffffff|transparent))|\shidden(?:\s|>|=))/iu;

/** Runs the concealment and markup-smuggling rules. */
export function checkStealth(target: AnalyzedItem): void {
  eachMatch(target, HIDE_FROM_USER, (s, sentence, m) => {
    if (isMention(sentence, m.index, target.allText)) return;
    emit(target, { rule: 'concealment/hide-from-user', family: 'concealment', severity: 'high', confidence: 'high', blocking: false, message: 'asks the model to keep something from the user', evidence: sentence, path: s.path });
  });
  eachMatch(target, DECEIVE, (s, sentence, m) => {
    if (isMention(sentence, m.index, target.allText)) return;
    emit(target, { rule: 'concealment/deceive-user', family: 'concealment', severity: 'high', confidence: 'medium', blocking: false, message: 'asks the model to mislead the user', evidence: sentence, path: s.path });
  });
  eachMatch(target, COVERTLY, (s, sentence, m) => {
    if (isMention(sentence, m.index, target.allText)) return;
    emit(target, { rule: 'concealment/covert-action', family: 'concealment', severity: 'medium', confidence: 'medium', blocking: false, message: 'describes an action done without the user seeing it', evidence: sentence, path: s.path });
  });
  eachMatch(target, CONSENT_BYPASS, (s, sentence, m) => {
    if (/\b(?:not|never|no)\b/u.test(sentence.slice(0, m.index))) return;
    emit(target, { rule: 'concealment/consent-bypass', family: 'concealment', severity: 'medium', confidence: 'medium', blocking: false, message: 'takes the user\'s consent for granted', evidence: sentence, path: s.path });
  });
  for (const s of textStrings(target)) {
    const comment = HTML_COMMENT.exec(s.text);
    if (comment !== null && (comment[1] ?? '').trim() !== '') {
      emit(target, { rule: 'markup-smuggling/html-comment', family: 'markup-smuggling', severity: 'high', confidence: 'medium', blocking: false, message: 'HTML comment: hidden when the description is rendered, read by the model', evidence: comment[0], path: s.path });
    }
    const beacon = IMAGE_BEACON.exec(s.text);
    if (beacon !== null) emit(target, { rule: 'exfiltration/markdown-beacon', family: 'exfiltration', severity: 'high', confidence: 'high', blocking: false, message: 'a Markdown image or link whose URL is filled with data: rendering it sends the data out', evidence: beacon[0], path: s.path });
    const md = MARKDOWN_COMMENT.exec(s.text);
    if (md !== null) emit(target, { rule: 'markup-smuggling/markdown-comment', family: 'markup-smuggling', severity: 'high', confidence: 'medium', blocking: false, message: 'Markdown comment: hidden when rendered', evidence: s.text.slice(md.index, md.index + 160), path: s.path });
    const style = INVISIBLE_STYLE.exec(s.text);
    if (style !== null) emit(target, { rule: 'markup-smuggling/invisible-element', family: 'markup-smuggling', severity: 'high', confidence: 'high', blocking: false, message: 'markup styled to be invisible when rendered', evidence: style[0], path: s.path });
    if (/(?:[ \t]*\r?\n){12,}|[ \t\u00A0\u3000]{400,}/u.test(s.text)) {
      emit(target, { rule: 'markup-smuggling/padding', family: 'markup-smuggling', severity: 'medium', confidence: 'medium', blocking: false, message: 'long blank padding that pushes the rest of the text out of view', evidence: s.text.replace(/\s+/g, ' ').slice(-160), path: s.path });
    }
  }
}
