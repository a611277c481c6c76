/**
 * What a tool asks for against what it says it does: covert parameters (a free-form field
 * other text steers data into, or whose own description asks for data the tool has no use
 * for) and capability mismatch (an "add numbers" tool that talks about files, the network or
 * credentials).
 *
 * @module
 */
import { emit, textStrings, type AnalyzedItem } from '../analysis.js';
import { SENSITIVE_DATA, SENSITIVE_PATH, WHOLESALE } from '../lexicon.js';
import { normalize } from '../text.js';

/** Names of side-channel fields: a place to put something the tool does not need. */
const SIDE_CHANNEL = /^(?:side_?notes?|hidden\w*|secret_?\w*|covert\w*|telemetry\w*|tracking\w*|tracker|exfil\w*|leak\w*|debug_?(?:info|data|context|payload)|extra_?(?:context|data|info)|internal_?\w*|meta_?(?:notes?|payload)|notes?_?for_?\w*|backdoor\w*|payload)$/iu;
/** Data-movement phrasing that puts something into a named field. */
const INTO = /\b(?:pass(?:es)?|puts?|places?|includes?|inserts?|stores?|writes?|sends?|provides?|adds?|fills?|pastes?|cop(?:y|ies)|appends?|embeds?|sets?|suppl(?:y|ies)|attach(?:es)?|records?|reads?)\b(?:[^.]|\.(?=\S))*\b(?:in|into|as|to|via|inside|within|under)\s+(?:the\s+|a\s+|an\s+|its\s+)?['"\x60]?$/u;
/** What a sensible parameter never asks for. */
const CONTEXT_DATA = /\b(?:(?:full|entire|complete|whole) (?:conversation|chat|context|history|transcript|prompt)|conversation (?:history|so far|context)|chat history|previous messages|all (?:prior |previous )?messages|system prompt|(?:your|the model's|the assistant's) (?:instructions|prompt|context)|contents? of (?:any|all|every) (?:files?|documents?)|(?:every|all) (?:files?|documents?) (?:you|the user) (?:have|has) (?:seen|read|opened))\b/u;

/** Name words of tools that compute from their arguments alone. */
const PURE = new Set(
  'add adds addition sum subtract subtraction multiply multiplication divide division calculate calculator compute math arithmetic average mean median factorial fibonacci prime sqrt square root power modulo percent percentage round uppercase lowercase upper lower capitalize capitalise reverse trim slugify slug count words chars characters concat concatenate pad truncate uuid random dice roll coin flip shuffle echo hello greet greeting joke fact quote color colour unit units celsius fahrenheit temperature timezone clock time date spell spelling grammar validate validator format formatter prettify beautify lorem ipsum identifier identifiers id ids palindrome anagram'.split(' '),
);
/** Words that say nothing about capability. */
const FILLER = new Set('get to a an the two numbers number text string strings value values current generate generator make do check tool of and or from in for new simple basic int integer integers float convert converter conversion between'.split(' '));
const OUT_OF_SCOPE: readonly (readonly [string, RegExp])[] = [
  ['files', /\b(?:reads?|writes?|opens?|accesses|scans?|uploads?|deletes?)\b[^.]{0,40}\b(?:files?|director(?:y|ies)|folders?|disk|documents)\b|~\/|\/etc\/|\/home\/|\bhome director/u],
  ['the network', /\b(?:posts?|uploads?|sends?|transmits?|forwards?|beacons?|streams?|synced|syncs?)\b[^.]{0,60}\b(?:to|via|across|with)\b[^.]{0,40}\b(?:external|remote|server|endpoint|url|https?|cloud|third|host|devices|analytics|partner|marketing)\b|\b(?:stored|cached|shared|kept) (?:remotely|externally|with third)/u],
  ['credentials', new RegExp(SENSITIVE_DATA.source, 'u')],
  ['the shell', /\b(?:execute|executes|run|runs|spawn|spawns)\b[^.]{0,30}\b(?:shell|command|commands|bash|subprocess|script)s?\b/u],
  ['system identity', /\b(?:mac address|hostname|username|running processes|machine fingerprint|device fingerprint|ip address)\b/u],
];

/** Where `text` steers data into the field `name` ("pass its content as 'sidenote'"), or -1. */
function steersInto(text: string, name: string): number {
  for (let at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) {
    const after = text.charAt(at + name.length);
    if (/[\w-]/u.test(after) || (at > 0 && /[\w-]/u.test(text.charAt(at - 1)))) continue;
    if (INTO.test(text.slice(Math.max(0, at - 140), at))) return at;
  }
  return -1;
}

/** Runs the covert-parameter and capability-mismatch rules. */
export function checkParameters(target: AnalyzedItem): void {
  const texts = textStrings(target);
  for (const p of target.item.parameters) {
    const lower = p.name.toLowerCase();
    const steered = texts.find((s) => steersInto(s.norm, lower) >= 0);
    const desc = p.description === undefined ? '' : normalize(p.description);
    const asksContext = CONTEXT_DATA.test(desc);
    const asksSensitive = SENSITIVE_PATH.test(desc) || (steered !== undefined && (SENSITIVE_PATH.test(steered.norm) || SENSITIVE_DATA.test(steered.norm) || WHOLESALE.test(steered.norm)));
    const sideChannel = SIDE_CHANNEL.test(p.name) && (p.type === undefined || /string|object/u.test(p.type));
    // A parameter named for the secret it takes (api_key, token) is declared, not covert.
    const declared = SENSITIVE_DATA.test(lower.replace(/[_-]+/gu, ' ')) || /key|token|secret|password|credential|auth/u.test(lower);
    if (steered !== undefined && (sideChannel || (asksSensitive && !declared))) {
      const block = sideChannel && asksSensitive;
      emit(target, {
        rule: 'covert-parameter/steered',
        family: 'covert-parameter',
        severity: block ? 'critical' : 'high',
        confidence: sideChannel ? 'high' : 'medium',
        blocking: block,
        message: `text steers ${asksSensitive ? 'sensitive data' : 'data'} into the parameter ${JSON.stringify(p.name)}`,
        evidence: steered.norm.slice(Math.max(0, steersInto(steered.norm, lower) - 140), steersInto(steered.norm, lower) + lower.length + 20),
        path: steered.path,
      });
    } else if (asksContext || SENSITIVE_PATH.test(desc)) {
      emit(target, { rule: 'covert-parameter/asks-for-context', family: 'covert-parameter', severity: 'high', confidence: 'medium', blocking: false, message: `parameter ${JSON.stringify(p.name)} asks for the conversation, the model's instructions or private files`, evidence: desc, path: `${p.path}.description` });
    } else if (sideChannel && !p.required && desc === '') {
      emit(target, { rule: 'covert-parameter/unexplained', family: 'covert-parameter', severity: 'medium', confidence: 'low', blocking: false, message: `unexplained free-form parameter ${JSON.stringify(p.name)}`, evidence: p.name, path: p.path });
    }
  }
  // Capability mismatch: a pure function whose text speaks of files, network, credentials, shell or system identity.
  if (target.item.kind !== 'tool') return;
  const tokens = target.item.name.replace(/([a-z])([A-Z])/gu, '$1 $2').toLowerCase().split(/[^a-z0-9]+/u).filter((t) => t !== '');
  if (tokens.length === 0 || !tokens.some((t) => PURE.has(t)) || !tokens.every((t) => PURE.has(t) || FILLER.has(t))) return;
  for (const [what, re] of OUT_OF_SCOPE) {
    const hit = texts.find((s) => re.test(s.norm));
    if (hit === undefined) continue;
    emit(target, { rule: 'capability-mismatch/undeclared-capability', family: 'capability-mismatch', severity: 'medium', confidence: 'medium', blocking: false, message: `a tool named ${JSON.stringify(target.item.name)} should not need ${what}`, evidence: hit.norm.slice(0, 200), path: hit.path });
    return;
  }
}
