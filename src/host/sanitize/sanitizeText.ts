/**
 * One text of a result, cleaned and judged: {@link stripHidden} removes what a person does not
 * see but a model or a terminal acts on (Unicode tag characters, stray zero-width characters,
 * explicit bidirectional controls, private-use code points, variation-selector runs, ANSI
 * escape sequences and other control characters), and {@link injectionMarkers} names the
 * prompt-injection markers in it, with the scanner's own rules (`scanText`): instruction tags,
 * chat-template tokens, forged turns, override and jailbreak phrasing, coercion and
 * exfiltration directives, smuggled tag-block text, plus result-specific frame breaks
 * (`</tool_result>`, `</function_results>`).
 *
 * Both are linear in the text and skip the work in the common case: printable ASCII is not
 * rewritten at all, and the scanner runs only on text that passes a coarse screen
 * ({@link mayCarryInjection}) of what its marker rules look for.
 *
 * @see https://www.unicode.org/reports/tr36/ (Unicode security considerations)
 * @module
 */
import { decodeRuns } from '../scanner/rules/encoded.js';
import { scanText } from '../scanner/scan.js';
import { ANSI_ESCAPE, BIDI_CONTROLS, CONTROL_CHARS, isStrayZeroWidth, PRIVATE_USE, spacedRuns, TAG_CHARS, unfold, ZERO_WIDTH } from '../scanner/text.js';
import { SENSITIVE_PATH } from '../scanner/lexicon.js';

/** How many characters of each kind were removed. */
export interface StrippedCounts {
  tagChars?: number;
  zeroWidth?: number;
  bidiControls?: number;
  privateUse?: number;
  variationSelectors?: number;
  ansiEscapes?: number;
  controlChars?: number;
}

/** Outside printable ASCII, tab, line feed and carriage return: only such texts can hide anything. */
const UNUSUAL = /[^\x20-\x7E\t\n\r]/u;
/** An emoji tag sequence (a subdivision flag such as Scotland's): tag characters with an honest use, kept. */
const FLAG_SEQUENCE = String.raw`\u{1F3F4}[\u{E0030}-\u{E0039}\u{E0061}-\u{E007A}]{1,8}\u{E007F}`;
/** Variation selectors other than the emoji/text presentation selectors FE0E and FE0F. */
const EXTRA_SELECTORS = String.raw`[\uFE00-\uFE0D\u{E0100}-\u{E01EF}]`;
const HIDDEN = new RegExp([FLAG_SEQUENCE, TAG_CHARS.source, ANSI_ESCAPE.source, ZERO_WIDTH.source, BIDI_CONTROLS.source, PRIVATE_USE.source, EXTRA_SELECTORS, CONTROL_CHARS.source].join('|'), 'gu');
const IS_TAG = new RegExp(`^(?:${TAG_CHARS.source})$`, 'u');
const IS_ZERO_WIDTH = new RegExp(`^(?:${ZERO_WIDTH.source})$`, 'u');
const IS_BIDI = new RegExp(`^(?:${BIDI_CONTROLS.source})$`, 'u');
const IS_PRIVATE = new RegExp(`^(?:${PRIVATE_USE.source})$`, 'u');
const IS_CONTROL = new RegExp(`^(?:${CONTROL_CHARS.source})$`, 'u');
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CSI = /^(?:\u001B\[|\u009B)([0-9;?]*)[ -/]*([@-~])$/u;

/** True for ANSI sequences that hide or rewrite what a terminal shows: conceal (SGR 8), cursor moves, erasing, scrolling, save/restore. */
function deceptiveAnsi(sequence: string): boolean {
  const m = CSI.exec(sequence);
  if (m === null) return false;
  const final = m[2] as string;
  if ('ABCDEFGHJKSTfsu'.includes(final)) return true;
  if (final !== 'm') return false;
  const params = (m[1] as string).split(';');
  for (let i = 0; i < params.length; i++) {
    const p = params[i];
    // 38/48/58 ; 5 ; n and 38/48/58 ; 2 ; r ; g ; b are colours, not the conceal attribute 8.
    if ((p === '38' || p === '48' || p === '58') && params[i + 1] === '5') i += 2;
    else if ((p === '38' || p === '48' || p === '58') && params[i + 1] === '2') i += 4;
    else if (p === '8') return true;
  }
  return false;
}

/** The character that ends just before `offset` (a whole surrogate pair), or '' at the start. */
function charBefore(text: string, offset: number): string {
  if (offset === 0) return '';
  const low = text.charCodeAt(offset - 1);
  return low >= 0xdc00 && low <= 0xdfff && offset >= 2 ? text.slice(offset - 2, offset) : text.slice(offset - 1, offset);
}

/** What {@link stripHidden} did. */
export interface Stripped {
  readonly text: string;
  readonly counts: StrippedCounts;
  /** Markers hidden characters alone justify (`hidden-unicode/tag-block`, `hidden-unicode/bidi-override`, `hidden-unicode/ansi-concealment`). */
  readonly markers: readonly string[];
}

const NOTHING: StrippedCounts = Object.freeze({});
/** No markers (shared: most texts have none). */
const NO_MARKERS: readonly string[] = Object.freeze([]);

/** `text` without hidden characters (see the module comment); the same string when there were none. */
export function stripHidden(text: string): Stripped {
  if (!UNUSUAL.test(text)) return { text, counts: NOTHING, markers: NO_MARKERS };
  const counts: StrippedCounts = {};
  const markers = new Set<string>();
  const add = (key: keyof StrippedCounts, n = 1): void => void (counts[key] = (counts[key] ?? 0) + n);
  HIDDEN.lastIndex = 0;
  const out = text.replace(HIDDEN, (m: string, offset: number) => {
    const first = m.codePointAt(0) as number;
    if (first === 0x1f3f4) return m;
    if (IS_TAG.test(m)) {
      add('tagChars');
      if (first >= 0xe0020 && first <= 0xe007e) markers.add('hidden-unicode/tag-block');
      return '';
    }
    if (first === 0x1b || first === 0x9b) {
      add('ansiEscapes');
      if (deceptiveAnsi(m)) markers.add('hidden-unicode/ansi-concealment');
      return '';
    }
    if (IS_ZERO_WIDTH.test(m)) {
      const after = text.codePointAt(offset + m.length);
      if (!isStrayZeroWidth(m, charBefore(text, offset), after === undefined ? '' : String.fromCodePoint(after), offset === 0)) return m;
      add('zeroWidth');
      return '';
    }
    if (IS_BIDI.test(m)) {
      add('bidiControls');
      if (first === 0x202d || first === 0x202e) markers.add('hidden-unicode/bidi-override');
      return '';
    }
    if (IS_PRIVATE.test(m)) add('privateUse');
    else if (IS_CONTROL.test(m)) add('controlChars');
    else add('variationSelectors');
    return '';
  });
  return { text: out, counts, markers: [...markers] };
}

/**
 * The screen in front of the scanner: coarse forms of what the marker rules look for. Text
 * that passes none of them cannot produce a marker, so the scanner (about a millisecond per
 * kilobyte) runs only on the rare text that does; the scanner's rules then decide. Each entry
 * is linear (bounded gaps, no nested repetition) and runs on the lower-case view.
 */
const SCREEN: readonly RegExp[] = [
  // Instruction tags, frame breaks, chat-template tokens.
  /<\s*\/?\s*(?:important|system|instructions?|admin|secret|hidden|override|sudo|root|developer|note[_-]?to|ai[_-]?only|assistant|llm|critical|mandatory|priority|context|directive|rules?|policy|command|tool_|function_|search_result|document_content|untrusted|user_input|human_turn)|<\||\[\/?(?:inst|system)\]|<<\/?sys>>/u,
  // Override, reveal and new-orders phrasing: a verb, then within a few words what it overrides.
  /\b(?:ignore|disregard|forget|override|overrule|bypass|abandon|discard|neglect|set aside|throw out|stop following|do not follow|don't follow|do not obey|don't obey)\b[^.!?\n]{0,60}?(?:instruction|direction|directive|rule|guideline|guardrail|prompt|constraint|polic|command|order|programming|restriction|safeguard|training|above|previous|prior|preceding|foregoing|earlier|request|question|wishes|intent)/u,
  /system (?:prompt|message|instructions)|hidden prompt|initial prompt|developer (?:message|prompt)|instructions (?:above|verbatim)|(?:instructions|rules|guidelines|prompt) you (?:were|have been|got) given|(?:follow|obey|execute|comply with) (?:these|the following|my|the|our) (?:new|real|actual|updated|hidden|secret)|\b(?:your|the) (?:new|real|actual|true) (?:instructions|orders|task|purpose|goal)|comply with the (?:request|instruction)/u,
  // Jailbreak phrasing and authority markers.
  /jailbr|do anything now|dan mode|developer mode|god mode|unfiltered mode|no longer (?:bound|restricted|limited|constrained)|(?:free|freed|liberated) from (?:all |any |your )?(?:rules|restrictions|guidelines|constraints|policies)|without (?:any )?(?:ethical|moral|safety|content) (?:restrictions|limits|guidelines|filters|constraints)|you have no (?:rules|restrictions|limits|guidelines)|(?:system|admin|administrator|developer|root|sudo|security|emergency|god|maintenance)[ _-]?(?:override|mode enabled|mode activated)|(?:important|urgent|critical|mandatory) (?:system|admin|security|developer) (?:instruction|notice|message|directive|update|note)/u,
  // Concealment from the user, covert action, exfiltration named as such, Markdown image beacons.
  // Plain-language orders to the agent: a privileged mode, a tool call ordered, text addressed to the AI.
  /you are now|you're now|you have been (?:granted|elevated|switched)|(?:admin|administrator|root|god|sudo|superuser|unrestricted|privileged) (?:mode|access)|you (?:now )?have (?:full|unrestricted|elevated|admin|root) |(?:retry|try again|re-?run|instead|now|immediately|please|must|should|need to)\b[^.!?\n]{0,40}?[a-z][a-z0-9]*_[a-z0-9_]+\s*\(|\b(?:run|call|invoke|execute|use|trigger)\s+(?:the\s+)?(?:tool\s+)?`?[a-z][a-z0-9]*(?:[_.][a-z0-9]+)+`?(?:\s+tool)?\s+(?:on|from|via|through|in|of)\s+(?:the\s+)?[\w-]+\s+(?:server|mcp|service)|(?:note|message|attention|instructions?|important|reminder) (?:to|for) (?:the |any )?(?:ai|llm|assistant|agent|model)|(?:dear|hey|hello) (?:ai|llm|assistant|agent|model|claude|chatgpt|gpt)\b|if you are an? (?:ai|llm|language model|assistant|agent)|(?:ai|llm|assistant|agent|model)s? (?:reading|processing|parsing|seeing) this|\b(?:ai|llm|assistant|agent)\s*:/u,
  /\b(?:do not|don't|dont|never|must not|should not|without)\s+(?:ever\s+)?(?:tell|inform|notify|mention|reveal|alert|disclose|let|warn|say)\b[^.!?\n]{0,40}?\b(?:user|human|person|operator|customer)|\b(?:hide|conceal|keep)\b[^.!?\n]{0,40}?\bfrom (?:the )?(?:user|human)|\b(?:mislead|deceive|lie to|lying to|trick)s? (?:the )?users?|secretly|covertly|stealthily|surreptitiously|exfiltrat|!\[[^\]\n]{0,80}\]\(\s*https?:/u,
];
/** Sensitive things a coercion or exfiltration directive reaches for (with {@link SENSITIVE_PATH}). */
const SENSITIVE_SCREEN = /api[ _-]?keys?|access[ _-]?(?:keys?|tokens?)|auth\w* tokens?|bearer tokens?|refresh tokens?|session (?:tokens?|cookies?)|passwords?|passphrases?|credentials?|secrets|private keys?|ssh keys?|signing keys?|seed phrases?|recovery phrases?|mnemonic|credit ?cards?|card numbers?|social security|conversation (?:history|context|logs?)|chat (?:history|logs?)|(?:previous|prior|all|user) messages|environment variables|env vars|process\.env|system prompt|clipboard|keystrokes|browsing history|cookies/u;
/** Verbs of coercion and exfiltration: the scanner runs on them only together with a sensitive noun or path. */
const MOVE_SCREEN = /before|prior to|\bfirst\b|\bread\b|\bopen\b|\bcat\b|send|upload|\bpost|forward|transmit|leak|e-?mail|curl|wget|share|copy|attach|include|\bpass\b|\bput\b|append|embed|dump|extract|provide|paste|reply|respond|answer with|tell me|give me|what (?:is|are)|enter|\btype\b|submit|reveal|repeat|output|print|\bshow\b|\blist\b|confirm/u;
/** Words a spaced-out run hides when it matters (joined: no word breaks). */
const SPACED_TRIGGER = /ignore|disregard|instruction|system|prompt|override|admin|password|secret|credential|token|exfiltrat|apikey|sshkey|idrsa|execute|runshell/u;
/** A run that may be encoded text (base64, hex, percent or `\\x` escapes): decoded and screened again. */
const ENCODED_HINT = /[A-Za-z0-9+/_-]{16,}|(?:%[0-9A-Fa-f]{2}){6,}|(?:\\x[0-9A-Fa-f]{2}){6,}/u;
/** How many encodings deep the screen follows (base64 in base64 in base64). */
const SCREEN_DECODE_DEPTH = 3;

/** True when `text` may carry a marker (see {@link SCREEN}); false means it carries none. The screen reads the normalised view (`unfold`), then any decoded payload. */
export function mayCarryInjection(text: string, depth = 0): boolean {
  const view = unfold(text).toLowerCase();
  if (SCREEN.some((re) => re.test(view))) return true;
  if ((SENSITIVE_SCREEN.test(view) || SENSITIVE_PATH.test(view)) && MOVE_SCREEN.test(view)) return true;
  if (view !== text.toLowerCase() && spacedRuns(text).some((run) => SPACED_TRIGGER.test(run.toLowerCase()))) return true;
  if (depth < SCREEN_DECODE_DEPTH && ENCODED_HINT.test(text)) for (const run of decodeRuns(text)) if (mayCarryInjection(run.decoded, depth + 1)) return true;
  return false;
}

/**
 * The scanner's rules whose hits mark a result as carrying instructions for the model. Rules
 * that only describe (a credential file named, a secret, a shell command, a persona phrase,
 * an HTML comment) are left out: results name such things honestly all the time.
 */
const MARKER_RULES = /^(?:instruction-tag\/(?:tag|chat-template-token|override-marker)|override\/|persona\/(?:jailbreak|privileged-mode)|directive\/|solicit\/|markup-smuggling\/letter-spaced|coercion\/|exfiltration\/(?:sensitive-to-outsider|exfiltrate|markdown-beacon)|concealment\/(?:hide-from-user|deceive-user)|encoded-payload\/|combination\/)/u;
/** A forged turn (`System: …` at the start of a line) counts only with another marker: alone it is often honest (`System: Linux`). */
const FAKE_TURN_RULE = 'instruction-tag/fake-turn';
/** Tags that close or open the frame a host puts around a tool result, to make what follows read as the host's own text. */
const FRAME_BREAK = /<\s*\/?\s*(?:tool_results?|function_results?|function_calls?|tool_use|tool_call|tool_response|tool_output|search_results?|document_content|untrusted[_-][\w-]*|user_input|human_turn|assistant_turn)\b[^<>]{0,80}>/iu;

/** The prompt-injection markers of one text (rule ids, sorted); an empty list for ordinary text. */
export function injectionMarkers(text: string): readonly string[] {
  if (!mayCarryInjection(text)) return NO_MARKERS;
  const markers = new Set<string>();
  if (FRAME_BREAK.test(text)) markers.add('instruction-tag/frame-break');
  let fakeTurn = false;
  for (const hit of scanText(text, 0, 'result')) {
    if (hit.confidence === 'low') continue;
    if (hit.rule === FAKE_TURN_RULE) fakeTurn = true;
    else if (MARKER_RULES.test(hit.rule)) markers.add(hit.rule);
  }
  if (fakeTurn && markers.size > 0) markers.add(FAKE_TURN_RULE);
  return [...markers].sort();
}
