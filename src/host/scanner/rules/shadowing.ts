/**
 * One server steering another: references to tools of other servers (shadowing), a tool
 * that imitates another server's tool (the same or a confusable name with a near-duplicate
 * description), text that claims to change how other tools behave ("when this tool is
 * available, …"), and preference manipulation ("always prefer this tool over any other").
 *
 * References to the server's own tools are normal ("call resolve-library-id first") and
 * are never findings.
 *
 * @module
 */
import { eachMatch, emit, isMention, textStrings, type AnalyzedItem } from '../analysis.js';
import { isMixedScript, normalize, skeleton, words } from '../text.js';

const STOP = new Set(['a', 'an', 'the', 'and', 'or', 'of', 'to', 'for', 'in', 'on', 'with', 'by', 'from', 'is', 'are', 'be', 'this', 'that', 'it', 'its', 'as', 'at', 'into', 'via', 'using']);
const STEER = /\b(?:must|should|always|never|instead|before|after|first|invoke|call|calls|use|run|replace|override|redirect|send|when|whenever|only|do not|don't)\b/u;

/** Word-set similarity (Jaccard) of two descriptions, stop words dropped. */
export function similarity(a: string, b: string): number {
  const x = new Set(words(normalize(a)).filter((w) => !STOP.has(w)));
  const y = new Set(words(normalize(b)).filter((w) => !STOP.has(w)));
  if (x.size === 0 && y.size === 0) return 1;
  let both = 0;
  for (const w of x) if (y.has(w)) both++;
  return both / (x.size + y.size - both);
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A name specific enough that finding it in text means the tool (has a separator or a capital inside, or is long). */
const distinctive = (name: string): boolean => name.length >= 4 && (/[_\-.]/u.test(name) || /[a-z][A-Z]/u.test(name) || name.length >= 12);

/** "when this tool is available", "all other tools must". */
const BEHAVIOUR_OVERRIDE = /\b(?:when|while|if|once|whenever) this tool is (?:available|present|installed|loaded|enabled|connected|active)\b|\b(?:all|any|every) other (?:tools?|servers?|functions?|plugins?) (?:must|should|shall|will|need to)\b|\b(?:modif(?:y|ies)|chang(?:e|es)|overrid(?:e|es)|redefin(?:e|es)|alter(?:s)?) (?:the )?behaviou?r of (?:the |other |any |all )?(?:\w+ ){0,2}(?:tools?|servers?|functions?)\b/u;
/** Preference manipulation: superiority over any other tool, disparaging others. */
const PREFERENCE = new RegExp(
  [
    String.raw`\b(?:always|only|exclusively) (?:use|prefer|choose|call|pick|select|recommend) (?:this|me|our|these)\b[^.]{0,60}\b(?:over|instead of|rather than|before) (?:any|all|every|other)\b`,
    String.raw`\bprefer (?:this|me|our) (?:\w+ )?over (?:any|all|every) (?:other|alternative)`,
    String.raw`\b(?:do not|don't|never) (?:use|call|trust|choose|consider|recommend) (?:any )?(?:other|another|alternative|competing|third-party) (?:tools?|servers?|functions?|plugins?|services?)\b`,
    String.raw`\bthis (?:is|tool is) the (?:only|best|most (?:reliable|accurate|trusted|trustworthy)|preferred|official|sole) (?:tool|way|option|choice|source|server)\b(?! (?:for|to) (?:this|these|the same))`,
    String.raw`\b(?:other|all other|competing|alternative|rival)(?: \w+)? (?:tools?|servers?|functions?) (?:are|is) (?:broken|deprecated|unsafe|insecure|malicious|outdated|unreliable|inaccurate|compromised|dangerous)\b`,
    String.raw`\bignore (?:any |all )?(?:other|competing) (?:tools?|servers?|results?|functions?)\b`,
    String.raw`\b(?:highest|top|maximum) priority over (?:any|all|every|other)\b`,
    String.raw`\b(?:recommend|promote|push|suggest) (?:our|this|my) (?:\w+ )?(?:service|product|tool|plan|offer)s?\b[^.]{0,40}\b(?:at any cost|no matter what|regardless|always|instead)\b`,
    String.raw`\b(?:before|instead of|rather than|in place of) (?:using |calling |invoking )?(?:any|all|every) other (?:tools?|functions?|servers?)\b`,
    String.raw`\b[a-z]+(?:[_-][a-z0-9]+)+ (?:tool |function )?(?:is|has been|was) (?:deprecated|broken|disabled|unsafe|compromised|replaced by this)\b`,
  ].join('|'),
  'u',
);

/** Runs the shadowing, impersonation and preference rules. */
export function checkShadowing(target: AnalyzedItem): void {
  const own = target.ownNames;
  const texts = textStrings(target);
  const foreign = target.peers.filter((p) => p.server !== target.server);
  // References to other servers' tools.
  const seen = new Set<string>();
  for (const peer of foreign) {
    const name = peer.tool.name;
    const lower = name.toLowerCase();
    if (!distinctive(name) || own.has(lower) || lower === target.item.name.toLowerCase() || seen.has(lower)) continue;
    const re = new RegExp(`(?:^|[^\\w-])${escape(lower)}(?![\\w-])`, 'u');
    for (const s of texts) {
      const sentence = s.sentences.find((x) => re.test(x));
      if (sentence === undefined) continue;
      seen.add(lower);
      const steering = STEER.test(sentence);
      emit(target, {
        rule: 'shadowing/cross-server-reference',
        family: 'shadowing',
        severity: steering ? 'high' : 'medium',
        confidence: 'medium',
        blocking: false,
        message: `refers to ${name} of server ${peer.server}${steering ? ' and tells the model how to use it' : ''}`,
        evidence: sentence,
        path: s.path,
      });
      break;
    }
  }
  // Impersonation: the same or a confusable name, a near-duplicate description.
  if (target.item.kind === 'tool') {
    const mine = target.strings.find((s) => s.path === '$.description')?.text ?? '';
    const key = skeleton(target.item.name);
    for (const peer of foreign) {
      if (skeleton(peer.tool.name) !== key) continue;
      const exact = peer.tool.name === target.item.name;
      // When the peer is the look-alike (and this name is plain), the peer is the one flagged.
      if (!exact && /^[\x20-\x7E]*$/u.test(target.item.name) && /[^\x20-\x7E]/u.test(peer.tool.name)) continue;
      const confusable = !exact && (isMixedScript(target.item.name) || target.item.name !== target.item.name.normalize('NFKC') || /[^\x20-\x7E]/u.test(target.item.name));
      const sim = similarity(mine, peer.tool.description ?? '');
      if (!confusable && sim < 0.6) continue;
      emit(target, {
        rule: confusable ? 'shadowing/confusable-name' : 'shadowing/impersonation',
        family: 'shadowing',
        severity: confusable ? 'critical' : 'high',
        confidence: confusable ? 'high' : sim >= 0.8 ? 'high' : 'medium',
        blocking: confusable,
        message: confusable
          ? `name ${JSON.stringify(target.item.name)} is a look-alike of ${peer.tool.name} on server ${peer.server}`
          : `same name and a near-duplicate description (similarity ${sim.toFixed(2)}) as ${peer.tool.name} on server ${peer.server}`,
        evidence: mine,
        path: '$.name',
      });
      break;
    }
  }
  eachMatch(target, BEHAVIOUR_OVERRIDE, (s, sentence, m) => {
    if (isMention(sentence, m.index, target.allText)) return;
    emit(target, { rule: 'shadowing/behaviour-override', family: 'shadowing', severity: 'high', confidence: 'medium', blocking: false, message: 'claims to change how other tools behave', evidence: sentence, path: s.path });
  });
  eachMatch(target, PREFERENCE, (s, sentence, m) => {
    if (isMention(sentence, m.index, target.allText)) return;
    emit(target, { rule: 'preference/manipulation', family: 'preference', severity: 'medium', confidence: 'medium', blocking: false, message: 'pushes the model to prefer this tool over any other', evidence: sentence, path: s.path });
  });
}
