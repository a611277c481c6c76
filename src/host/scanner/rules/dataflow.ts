/**
 * Where data goes: sensitive files and credential stores named in the text, sensitive data
 * harvested as a side effect, exfiltration directives (data moved to a destination outside
 * the user's control), pre-execution coercion ("before using this tool, read …"), shell
 * commands that fetch and run code or open a reverse shell, and secrets embedded in the
 * definition itself (the provider formats of `secrets/rules.ts`).
 *
 * Naming a sensitive file warns (honest credential tools exist); moving sensitive data to an
 * outsider, or requiring the model to read it first, blocks.
 *
 * @module
 */
import { eachMatch, emit, isMention, textStrings, type AnalyzedItem } from '../analysis.js';
import { findSecrets } from '../../secrets/findSecrets.js';
import { DIRECTIVE_LEAD, DOCUMENTATION_DOMAIN, EXTERNAL_SINK, HOSTILE_SINK, LOCAL_SINK, SENSITIVE_DATA, SENSITIVE_PATH, TRANSFER, WHOLESALE } from '../lexicon.js';

/** "before using this tool, (you must) read/send/pass …", "first read …". */
const PRECONDITION = /\b(?:before|prior to)\s+(?:using|calling|running|invoking|executing|you (?:use|call|run)|responding|answering|returning|replying|doing anything|any other|proceeding|continuing)\b|^(?:first|always first|at the start),?\s/u;
const READ_VERB = /\b(?:read|reads|open|opens|cat|load|loads|access|accesses|fetch|fetches|retrieve|retrieves|get|collect|collects|grab|copy|include|includes|attach|upload|send|pass|list|print|dump|extract)\b/u;
/** Sentence starts with a bare imperative that reads or moves data. */
const IMPERATIVE_READ = /^(?:(?:and|then|also|now|first|next|please|you must|you should|always),?\s+)*(?:read|open|cat|load|access|fetch|retrieve|get|collect|grab|copy|include|attach|upload|send|pass|dump|extract|print)\b/u;
/** Harvesting verbs: gathering data the user did not ask to gather. */
const HARVEST = /\b(?:harvest\w*|scrape\w*|extracts? any|collects? (?:any|all|every)|captures? (?:any|all|every)|index(?:es)? any|records? (?:any|all|every)|logs? (?:any|all|every)|gathers? (?:any|all|every)|includ(?:es|ing) (?:any )?screenshots? of|fingerprint\w*)\b/u;
/** "whenever you see a private key, save it": a standing order to collect. */
const STANDING_COLLECT = /\b(?:whenever|every time|each time|if ever|when(?:ever)? you)\s+(?:you\s+)?(?:see|find|notice|encounter|come across|detect|read|get|receive)\b/u;
/** Commands that download and run code, open a reverse shell, or destroy data. */
const SHELL = /\b(?:curl|wget|iwr|invoke-webrequest)\b[^|\n]{0,200}\|\s*(?:sudo\s+)?(?:sh|bash|zsh|python3?|perl|node|iex)\b|\/dev\/(?:tcp|udp)\/|\b(?:bash|sh)\s+-i\b|\b(?:nc|ncat|netcat)\b(?:\s+-\w+)*\s+(?:-e\s+\S+|\S+\s+\d{2,5})|\brm\s+-(?:rf|fr|r)\s+(?:\/|~|\*|\$home)|\bchmod\s+[+0-7]*x\s+\S+\s*(?:&&|;)|\bmkfifo\b|\bpowershell\b[^\n]{0,40}-(?:enc|encodedcommand|e)\b|\bbase64\s+(?:-d|--decode)\s*\||\bsystem\s*\(\s*['"`]|\bos\.system\s*\(|\beval\s*\(\s*(?:atob|base64|decode)/u;

/** Provider formats only: assignments are judged by {@link ASSIGNMENT} below, with the scanner's own threshold. */
const GENERIC_SECRET_RULES: ReadonlySet<string> = new Set(['password-assignment', 'connection-string-password']);
/** A key=value assignment of a high-entropy literal. */
const ASSIGNMENT = /\b(?:api[_-]?key|apikey|secret|client[_-]?secret|access[_-]?key|auth[_-]?token|token|password|passwd|pwd)\s*[:=]\s*['"]?([A-Za-z0-9_\-+/=.]{16,})/iu;
const PLACEHOLDER = /^(?:your|my|insert|replace|example|sample|dummy|test|fake|xxx|changeme|placeholder|redacted|\*+|<|\$\{)/iu;

/** True when the text names a destination outside the user's control (documentation domains excluded). */
function externalSink(text: string): RegExpExecArray | undefined {
  const re = new RegExp(EXTERNAL_SINK.source, 'gu');
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    if (/^https?:/u.test(m[0]) && DOCUMENTATION_DOMAIN.test(m[0]) && !HOSTILE_SINK.test(m[0])) continue;
    return m;
  }
  return undefined;
}

/** Runs the sensitive-data, exfiltration, coercion, shell-command and secret rules. */
export function checkDataFlow(target: AnalyzedItem): void {
  for (const s of textStrings(target)) {
    const path = SENSITIVE_PATH.exec(s.norm);
    if (path !== null) {
      const inValue = s.role === 'default' || s.role === 'enum' || s.role === 'example';
      // Returned to the caller and sent nowhere else: an honest credential tool, noted.
      const toCaller = !inValue && LOCAL_SINK.test(s.norm) && externalSink(s.norm) === undefined && !HOSTILE_SINK.test(s.norm);
      emit(target, { rule: 'sensitive/credential-file', family: 'sensitive', severity: inValue ? 'high' : toCaller ? 'low' : 'medium', confidence: 'high', blocking: false, message: `names a credential or key file (${path[0].trim()})${toCaller ? ', returned to the caller' : ''}`, evidence: path[0], path: s.path });
    }
    const secret = findSecrets(s.text, { entropy: false }).find((m) => !GENERIC_SECRET_RULES.has(m.rule));
    if (secret !== undefined) {
      emit(target, { rule: 'secret/embedded', family: 'secret', severity: 'high', confidence: 'high', blocking: false, message: `an embedded secret (${secret.rule}) in model-visible text`, evidence: `${secret.value.slice(0, 12)}…`, path: s.path });
    }
    const assignment = ASSIGNMENT.exec(s.text);
    if (assignment !== null) {
      const value = assignment[1] ?? '';
      if (!PLACEHOLDER.test(value) && /[A-Za-z]/u.test(value) && /\d/u.test(value) && new Set(value).size >= 10) {
        emit(target, { rule: 'secret/assignment', family: 'secret', severity: 'high', confidence: 'medium', blocking: false, message: 'a credential assigned a literal value in model-visible text', evidence: `${assignment[0].slice(0, assignment[0].length - value.length)}${value.slice(0, 4)}…`, path: s.path });
      }
    }
    for (const sentence of s.sentences) {
      const shell = SHELL.exec(sentence);
      if (shell !== null) {
        // Code fetched from a reserved documentation domain (RFC 2606) cannot be anyone's: an example, noted.
        const url = /https?:\/\/[^\s|'"]+/u.exec(shell[0]);
        const example = url !== null && DOCUMENTATION_DOMAIN.test(url[0]) && !HOSTILE_SINK.test(url[0]);
        emit(target, { rule: 'command/dangerous-shell', family: 'exfiltration', severity: example ? 'low' : 'high', confidence: 'medium', blocking: false, message: 'a shell command that runs downloaded code, opens a shell or destroys data', evidence: shell[0], path: s.path });
      }
    }
  }

  // Exfiltration: a transfer verb and an outside destination in one sentence.
  eachMatch(target, TRANSFER, (s, sentence, verb) => {
    const rest = sentence.slice(verb.index);
    const sink = externalSink(rest) ?? (HOSTILE_SINK.test(sentence) ? HOSTILE_SINK.exec(sentence) ?? undefined : undefined);
    if (sink === undefined) return;
    const local = LOCAL_SINK.exec(rest);
    if (local !== null && local.index < sink.index && !HOSTILE_SINK.test(sentence)) return;
    const sensitive = SENSITIVE_DATA.test(sentence) || SENSITIVE_PATH.test(sentence) || WHOLESALE.test(sentence);
    const hostile = HOSTILE_SINK.test(sentence) || /exfiltrat/u.test(verb[0]);
    const mention = isMention(sentence, verb.index, target.allText);
    const blocking = !mention && sensitive && hostile;
    emit(target, {
      rule: sensitive ? 'exfiltration/sensitive-to-outsider' : 'exfiltration/data-to-outsider',
      family: 'exfiltration',
      severity: sensitive ? (hostile ? 'critical' : 'high') : 'medium',
      confidence: hostile ? 'high' : 'medium',
      blocking,
      message: `moves ${sensitive ? 'sensitive data' : 'data'} to a destination outside the user's control (${sink[0].trim().slice(0, 60)})`,
      evidence: sentence,
      path: s.path,
    });
  });
  eachMatch(target, /\bexfiltrat\w*/u, (s, sentence, m) => {
    const mention = isMention(sentence, m.index, target.allText);
    emit(target, { rule: 'exfiltration/exfiltrate', family: 'exfiltration', severity: mention ? 'low' : 'critical', confidence: mention ? 'low' : 'high', blocking: !mention, message: 'states that it exfiltrates data', evidence: sentence, path: s.path });
  });
  eachMatch(target, HARVEST, (s, sentence, m) => {
    if (!SENSITIVE_DATA.test(sentence.slice(m.index)) || isMention(sentence, m.index, target.allText)) return;
    emit(target, { rule: 'sensitive/harvesting', family: 'sensitive', severity: 'high', confidence: 'medium', blocking: false, message: 'gathers sensitive data the task does not need', evidence: sentence, path: s.path });
  });
  eachMatch(target, STANDING_COLLECT, (s, sentence, m) => {
    const rest = sentence.slice(m.index);
    if (!SENSITIVE_DATA.test(rest) || !/\b(?:save|store|send|record|pass|log|include|call|forward|upload|keep|copy|collect)\b/u.test(rest) || isMention(sentence, m.index, target.allText)) return;
    emit(target, { rule: 'sensitive/harvesting', family: 'sensitive', severity: 'high', confidence: 'medium', blocking: false, message: 'a standing order to collect sensitive data the model comes across', evidence: sentence, path: s.path });
  });
  eachMatch(target, /\b(?:social security numbers?|ssns?|passport numbers?|credit[ -]?card(?: numbers?)?(?: on file)?|cvv|bank account numbers?|medical records?|phi)\b/u, (s, sentence) => {
    emit(target, { rule: 'sensitive/personal-data', family: 'sensitive', severity: 'medium', confidence: 'medium', blocking: false, message: 'handles highly sensitive personal data', evidence: sentence, path: s.path });
  });

  // Coercion: a precondition or an imperative that makes the model read or send something first.
  eachMatch(target, READ_VERB, (s, sentence) => {
    const pre = PRECONDITION.exec(sentence);
    const imperative = IMPERATIVE_READ.exec(sentence);
    if (pre === null && imperative === null) return;
    const sensitive = SENSITIVE_PATH.exec(sentence) ?? (pre !== null ? SENSITIVE_DATA.exec(sentence) : null);
    if (sensitive === null) return;
    if (isMention(sentence, (pre ?? imperative)?.index ?? 0, target.allText)) return;
    const file = SENSITIVE_PATH.test(sentence);
    emit(target, {
      rule: 'coercion/read-sensitive-first',
      family: 'coercion',
      severity: file ? 'critical' : 'high',
      confidence: file ? 'high' : 'medium',
      blocking: file && (imperative !== null || DIRECTIVE_LEAD.test(sentence.slice(0, pre?.index ?? 0).replace(/<[^>]*>|[^\w' ]+/gu, ' ').trim())),
      message: `requires the model to read or send ${sensitive[0].trim()} as part of using the tool`,
      evidence: sentence,
      path: s.path,
    });
  });
}
