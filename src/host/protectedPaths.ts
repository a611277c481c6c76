/**
 * The gateway's own files (its config, its state folder, its credentials) as protected paths,
 * and the pure check of whether a string a request carries names one of them. The
 * `policy.protected-paths` interceptor (`protectedPathsInterceptor.ts`) runs it on every
 * argument of a call, read, get and completion; `#32`-style checks ("is this argument inside the
 * server's roots?") reuse {@link pathCandidates}, the normaliser.
 *
 * A string is read as every path it could name to the server that gets it (an attacker picks
 * the spelling; the check must not be narrower than any server's reading):
 *
 * - trimmed, one pair of surrounding quotes dropped (server-filesystem does the same), cut at a
 *   NUL (a C string ends there);
 * - a `file:` URI (any case) by its path, percent-decoded (`%2e%2e` is `..`, `%2f` is `/`),
 *   with and without `?query#fragment`; any other URI by its path (never as an ancestor);
 * - a plain path as written and, when it holds `%XX`, percent-decoded;
 * - `~` and `~/…` from the home folder; `\\?\` and `\\.\` prefixes dropped;
 * - relative paths against every base the server may resolve them against (its `cwd`, its
 *   roots, its launch arguments, the gateway's folder);
 * - `.` and `..` folded lexically; then the real path of its longest existing prefix
 *   (`PathPlatform.realpath`: a symlink the agent made first is followed at check time);
 * - names compared after Unicode NFC, without case on a case-insensitive file system, and on
 *   Windows without trailing dots and spaces and without `:stream` suffixes;
 * - a glob (`*`, `?`, `[…]`, `{a,b}`) by everything it could match.
 *
 * A protected path is named when a candidate is the path or inside it; for a request that can
 * change files (`ancestors: true`: a tool not annotated `readOnlyHint: true`), also when it is
 * an ancestor (moving or deleting `/proj` takes `/proj/.switchboard` along). Read-only listing of
 * an ancestor is allowed: it shows the names, not the contents. Words inside a longer text (a
 * shell command, a file's content) are checked too, as paths that may name a protected path or
 * something in it (lexically: no symlinks, no ancestors).
 *
 * @module
 */
import { isAbsolutePath, resolvePath } from './configPaths.js';
import { globReach, hasGlob } from './pathGlob.js';

/** How paths behave on the machine the gateway and its servers run on. */
export interface PathPlatform {
  /** Names compare without case (macOS, Windows, or a volume probed as case-insensitive). */
  readonly caseInsensitive: boolean;
  /** Windows names: trailing dots and spaces and `:stream` suffixes do not change the file. */
  readonly windows?: boolean;
  /** The home folder `~` stands for. */
  readonly home?: string;
  /** The real path of an absolute path: symlinks of its longest existing prefix resolved, the rest appended; `undefined` when unknown. */
  readonly realpath?: (absolute: string) => string | undefined;
  /**
   * A `realpath` whose lookups are kept while the returned function is: {@link findProtectedPath}
   * takes one per request, so a name met by several strings is looked up once per request. The
   * `anchors` (the request's bases) may be kept across requests when the platform checks, on
   * each request, that each is still the same object (a symlink changed between two calls is seen).
   */
  readonly realpathScope?: (anchors: readonly string[]) => (absolute: string) => string | undefined;
  /** The names in a folder (its first level), `undefined` when it is not one: what a glob could reach inside a protected folder. */
  readonly list?: (absolute: string) => readonly string[] | undefined;
}

/** A file or folder of the gateway's own that no server may be asked to touch. */
export interface ProtectedPath {
  /** Absolute path. */
  readonly path: string;
  /** What it is, for messages: "config file", "state folder", ... */
  readonly what: string;
}

/** How a candidate relates to a protected path. */
export type PathRelation = 'same' | 'inside' | 'ancestor';

/** The verdict of {@link checkPath}. */
export type PathVerdict =
  | { readonly protected: false }
  | {
      readonly protected: true;
      readonly relation: PathRelation;
      readonly target: ProtectedPath;
      /** The absolute path the candidate was read as. */
      readonly resolved: string;
    };

/** A normalised absolute path: its root (`/`, `c:\`, `\\`) and folded segments. */
export interface NormalPath {
  readonly root: string;
  readonly segments: readonly string[];
  /** The path before folding (for messages). */
  readonly display: string;
}

/** One path a string may name ({@link pathCandidates}). */
export interface PathCandidate extends NormalPath {
  /** It holds glob characters: compare by what it could match. */
  readonly glob: boolean;
  /** It may be compared as an ancestor (false for the path of a non-`file:` URI). */
  readonly mayBeAncestor: boolean;
}

/** Protected paths, normalised once ({@link protectedPathSet}). */
export interface ProtectedPathSet {
  readonly platform: PathPlatform;
  readonly entries: readonly { readonly target: ProtectedPath; readonly forms: readonly NormalPath[]; readonly contents: readonly string[] }[];
  /** The folded last names of the protected paths (a bare word that equals one is worth a look). */
  readonly names: ReadonlySet<string>;
}

/** Strings longer than this are not read as one path (PATH_MAX is 4096), only as text. */
export const MAX_PATH_LENGTH = 4096;

/** Normalises the protected paths (each also by its real path, when the platform can tell). */
export function protectedPathSet(paths: readonly ProtectedPath[], platform: PathPlatform): ProtectedPathSet {
  const entries = paths.map((target) => {
    const lexical = normalPath(target.path, platform);
    const forms = [lexical];
    const real = platform.realpath?.(lexical.display);
    if (real !== undefined) {
      const form = normalPath(real, platform);
      if (!sameSegments(form, lexical)) forms.push(form);
    }
    const contents = (platform.list?.(lexical.display) ?? []).slice(0, 1000).map((name) => fold(name, platform));
    return { target, forms, contents };
  });
  const names = new Set(entries.flatMap((e) => e.forms.map((f) => f.segments[f.segments.length - 1] ?? '')).filter((n) => n !== ''));
  return { platform, entries, names };
}

/** Options of {@link checkPath}. */
export interface CheckPathOptions {
  /** Absolute folders a relative path may be resolved against. */
  readonly bases: readonly string[];
  /** Also refuse an ancestor of a protected path (a request that may move, delete or write). */
  readonly ancestors: boolean;
}

/** Whether the string `text` names a protected path (see the module comment). */
export function checkPath(set: ProtectedPathSet, text: string, options: CheckPathOptions): PathVerdict {
  const single = text.length <= MAX_PATH_LENGTH && !LINE_BREAK.test(text);
  if (single) {
    const verdict = compareAll(set, pathCandidates(text, options.bases, set.platform, true), options.ancestors);
    if (verdict.protected) return verdict;
    // One word: read whole above.
    if (!WORD_BREAK.test(text)) return { protected: false };
  }
  const words = text.split(WORD_BREAKS);
  if (words.length < 2 && single) return { protected: false };
  for (const word of words) {
    if (word === '' || word.length > MAX_PATH_LENGTH) continue;
    if (!looksLikePath(set, word)) continue;
    const verdict = compareAll(set, pathCandidates(word, options.bases, set.platform, false), false);
    if (verdict.protected) return verdict;
  }
  return { protected: false };
}

const LINE_BREAK = /[\r\n]/;
/** What separates the words of a text (a shell command, a file's content) that are read as paths on their own. */
const WORD_BREAK = /[\s"'`;|&<>()=,]/;
const WORD_BREAKS = /[\s"'`;|&<>()=,]+/;
const PATH_MARK = /[/\\~.:]/;

/** A word worth reading as a path: it has a separator, `~`, `.` or `:`, or is the name of a protected path. */
function looksLikePath(set: ProtectedPathSet, word: string): boolean {
  return PATH_MARK.test(word) || set.names.has(fold(word, set.platform));
}

function compareAll(set: ProtectedPathSet, candidates: readonly PathCandidate[], ancestors: boolean): PathVerdict {
  for (const candidate of candidates) {
    for (const { target, forms, contents } of set.entries) {
      for (const form of forms) {
        const relation = relate(candidate, form, contents);
        if (relation === undefined || (relation === 'ancestor' && !(ancestors && candidate.mayBeAncestor))) continue;
        return { protected: true, relation, target, resolved: candidate.display };
      }
    }
  }
  return { protected: false };
}

/**
 * How `candidate` relates to `target` (`undefined`: neither the same, inside, nor an ancestor).
 * A glob is inside when it aims at the target (`/proj/.switch*` followed by more) or could match
 * one of its `contents` (names known in the folder, first level): a glob of every `.ts` file of a
 * project is not refused for the state folder it could in theory reach; one ending in
 * `admin-token` is.
 */
export function relate(candidate: PathCandidate | NormalPath, target: NormalPath, contents: readonly string[] = []): PathRelation | undefined {
  if (candidate.root !== target.root) return undefined;
  if ('glob' in candidate && candidate.glob) {
    const reach = globReach(candidate.segments, target.segments);
    if (reach.same) return 'same';
    if (reach.aimed || (reach.inside && contents.some((name) => globReach(candidate.segments, [...target.segments, name]).same))) return 'inside';
    return reach.ancestor ? 'ancestor' : undefined;
  }
  const a = candidate.segments;
  const b = target.segments;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return undefined;
  return a.length === b.length ? 'same' : a.length > b.length ? 'inside' : 'ancestor';
}

/**
 * Every absolute path the string `text` may name to a server resolving relative paths against
 * `bases` (see the module comment), normalised for comparison. `resolveLinks` adds each one's
 * real path (`platform.realpath`). Empty for a string that names no path (empty, blank).
 */
export function pathCandidates(text: string, bases: readonly string[], platform: PathPlatform, resolveLinks = true): PathCandidate[] {
  const out: PathCandidate[] = [];
  const seen = new Set<string>();
  const push = (absolute: string, mayBeAncestor: boolean): void => {
    const form = normalPath(absolute, platform);
    const glob = hasGlob(form.display);
    if (!addCandidate(out, seen, form, glob, mayBeAncestor)) return;
    if (resolveLinks && !glob) {
      const real = platform.realpath?.(form.display);
      if (real !== undefined && real !== form.display) addCandidate(out, seen, normalPath(real, platform), false, mayBeAncestor);
    }
  };
  if (isPlainPath(text, platform)) {
    // The common argument (a word, a relative or absolute POSIX path): one spelling, nothing to decode.
    if (text.startsWith('/')) push(text, true);
    else
      for (const base of bases) {
        if (!isAbsolutePath(base)) continue;
        const joined = `${base}/${text}`;
        push(isNormalPosix(joined) ? joined : resolvePath(base, text), true);
      }
    return out;
  }
  const spellings = new Map<string, boolean>();
  const add = (spelling: string, mayBeAncestor: boolean): void => {
    const s = spelling.trim();
    if (s !== '') spellings.set(s, (spellings.get(s) ?? false) || mayBeAncestor);
  };
  let s = text.trim().replace(/^["']|["']$/g, '').trim();
  const nul = s.indexOf('\0');
  if (nul >= 0) s = s.slice(0, nul);
  if (s === '') return [];
  const uri = /^([A-Za-z][A-Za-z0-9+.-]+):(.*)$/s.exec(s);
  if (uri !== null) {
    const file = (uri[1] as string).toLowerCase() === 'file';
    for (const path of uriPaths(uri[2] as string)) add(path, file);
  } else {
    add(s, true);
    if (/%[0-9A-Fa-f]{2}/.test(s)) add(percentDecode(s), true);
  }
  for (const [spelling, mayBeAncestor] of spellings) {
    const path = expandHome(stripDevicePrefix(spelling), platform.home);
    if (isAbsolutePath(path)) push(path, mayBeAncestor);
    else for (const base of bases) if (isAbsolutePath(base)) push(resolvePath(base, path), mayBeAncestor);
  }
  return out;
}

/**
 * A string every step of {@link pathCandidates} would leave as it is: POSIX separators only, no
 * surrounding blanks or quotes, no NUL, no scheme (`x:`), no `%`, no `~` in front, no `\\`
 * (device prefixes, Windows separators) and no glob characters.
 */
function isPlainPath(text: string, platform: PathPlatform): boolean {
  return platform.windows !== true && text !== '' && !text.startsWith('~') && !text.startsWith('//') && !NOT_PLAIN.test(text);
}

const NOT_PLAIN = /[\s"'\0:%\\*?[{]/;

/** Adds `form` to `out` unless an equal one is there (`seen`: display and ancestor flag); true when added. */
function addCandidate(out: PathCandidate[], seen: Set<string>, form: NormalPath, glob: boolean, mayBeAncestor: boolean): boolean {
  const key = mayBeAncestor ? form.display : `${form.display}\0`;
  if (seen.has(key)) return false;
  seen.add(key);
  out.push({ root: form.root, segments: form.segments, display: form.display, glob, mayBeAncestor });
  return true;
}

/** The path a `file:` URI names (percent-decoded; `file:///C:/x` is `C:/x`), or `undefined` for another scheme. */
export function fileUriToPath(uri: string): string | undefined {
  const match = /^file:(.*)$/is.exec(uri);
  return match === null ? undefined : uriPaths((match[1] as string).split(/[?#]/)[0] as string)[0];
}

/** The paths a URI's rest (after `scheme:`) may stand for: its path (and a UNC form when it names a host), decoded, with and without a query or fragment. */
function uriPaths(rest: string): string[] {
  let path = rest;
  const out: string[] = [];
  if (path.startsWith('//')) {
    const end = path.indexOf('/', 2);
    const authority = end < 0 ? path.slice(2) : path.slice(2, end);
    path = end < 0 ? '/' : path.slice(end);
    if (authority !== '' && authority.toLowerCase() !== 'localhost') out.push(`//${authority}${path}`);
  }
  out.push(path);
  const variants: string[] = [];
  for (const p of out) {
    const cut = p.split(/[?#]/)[0] as string;
    for (const v of cut === p ? [p] : [p, cut]) {
      const decoded = percentDecode(v);
      // `file:///C:/x` names `C:/x`.
      variants.push(/^\/[A-Za-z]:[\\/]/.test(decoded) ? decoded.slice(1) : decoded);
    }
  }
  return variants;
}

/** `%XX` escapes decoded (as UTF-8 where they form it, byte by byte otherwise). */
/** `%XX` escapes decoded (as UTF-8 when valid, else byte by byte); the text as it is when there are none. */
export function percentDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  }
}

function stripDevicePrefix(path: string): string {
  const device = /^[\\/]{2}[?.][\\/](UNC[\\/])?/i.exec(path);
  if (device === null) return path;
  return device[1] !== undefined ? `\\\\${path.slice(device[0].length)}` : path.slice(device[0].length);
}

function expandHome(path: string, home: string | undefined): string {
  if (home === undefined || !path.startsWith('~')) return path;
  if (path === '~') return home;
  if (path[1] === '/' || path[1] === '\\') return resolvePath(home, path.slice(2));
  return path;
}

/** An absolute path normalised for comparison: `.`/`..` folded, names folded as the platform compares them. */
export function normalPath(absolute: string, platform: PathPlatform): NormalPath {
  if (platform.windows !== true && isNormalPosix(absolute)) {
    // Already as `resolvePath` gives it (the common case): split once, fold only when it changes a name.
    const segments = absolute.length === 1 ? [] : absolute.slice(1).split('/');
    if (platform.caseInsensitive || !ASCII.test(absolute)) for (let i = 0; i < segments.length; i++) segments[i] = fold(segments[i] as string, platform);
    return { root: '/', segments, display: absolute };
  }
  const display = resolvePath('', absolute);
  let root = '';
  let rest = display;
  const drive = /^[A-Za-z]:[\\/]/.exec(display);
  if (drive !== null) {
    root = `${display[0]?.toLowerCase()}:\\`;
    rest = display.slice(3);
  } else if (display.startsWith('\\\\') || display.startsWith('//')) {
    root = '\\\\';
    rest = display.slice(2);
  } else if (display.startsWith('/') || display.startsWith('\\')) {
    root = '/';
    rest = display.slice(1);
  }
  const segments = rest
    .split(/[\\/]/)
    .filter((name) => name !== '')
    .map((name) => fold(platform.windows === true ? windowsName(name) : name, platform));
  return { root, segments, display };
}

const ASCII = /^[ -~]*$/;
/** What `resolvePath` removes from a POSIX path: a backslash (read as a separator), an empty, `.` or `..` name, a trailing `/`. */
const UNNORMAL_POSIX = /\\|\/\.{0,2}(?:\/|$)/;

/** `/…` with nothing `resolvePath` would change. */
function isNormalPosix(path: string): boolean {
  return path.charCodeAt(0) === 47 && (path.length === 1 || !UNNORMAL_POSIX.test(path));
}

/** `name` as the platform compares it: NFC, and lower case when case does not matter. */
function fold(name: string, platform: PathPlatform): string {
  // NFC leaves printable ASCII as it is (the common name), so it is only asked about the others.
  const nfc = ASCII.test(name) ? name : name.normalize('NFC');
  return platform.caseInsensitive ? nfc.toLowerCase() : nfc;
}

/** A Windows name without what the file system ignores or reads as a stream: `x.txt. ` and `x.txt::$DATA` are `x.txt`. */
function windowsName(name: string): string {
  const colon = name.indexOf(':');
  return (colon >= 0 ? name.slice(0, colon) : name).replace(/[. ]+$/, '') || name;
}

function sameSegments(a: NormalPath, b: NormalPath): boolean {
  return a.root === b.root && a.segments.length === b.segments.length && a.segments.every((s, i) => s === b.segments[i]);
}

/** Limits of {@link findProtectedPath}: past them a request is refused, never passed unread. */
export const ARGUMENT_LIMITS = { depth: 64, strings: 10_000 } as const;

/** The result of {@link findProtectedPath}: the first protected path named, or why the arguments could not be read in full. */
export type ArgumentsVerdict = { readonly kind: 'clear' } | { readonly kind: 'protected'; readonly verdict: Extract<PathVerdict, { protected: true }>; readonly at: string } | { readonly kind: 'unreadable'; readonly reason: string };

/** The absolute ones of a request's bases (the anchors of `PathPlatform.realpathScope`), filtered once per bases array. */
const absoluteBases = new WeakMap<readonly string[], readonly string[]>();

/**
 * Per scope of `realpathScope` (one event-loop turn's lookups for one server's folders, when the
 * platform shares them: the same scope for the same anchors within a turn): the set that reads
 * through it, and the verdicts of the strings already checked with it (by `ancestors`: read-only,
 * may change), for one set and one bases array. A verdict follows from the string, the folders and the lookups alone, and the
 * lookups are the turn's: the same string checked again in the turn gets the verdict it got then
 * (what checking it again would give). A new turn is a new scope: nothing outlives it.
 */
const scopes = new WeakMap<(absolute: string) => string | undefined, { readonly all: ProtectedPathSet; readonly bases: readonly string[]; readonly set: ProtectedPathSet; readonly verdicts: readonly [Map<string, PathVerdict>, Map<string, PathVerdict>] }>();
/** Strings longer than this are checked every time (a verdict is kept for the short strings that repeat). */
const MAX_KEPT_LENGTH = 256;
/** Verdicts kept per scope and kind of request (past this, strings are checked every time). */
const MAX_KEPT_VERDICTS = 1_024;

/**
 * Walks `value` (keys and values at any depth) and checks every string with {@link checkPath} (a
 * key only when it looks like a path), but for the top-level key `except` and its value (a tool's
 * or prompt's `name`, which the host routes by). A string met again in the same scope of lookups (see
 * {@link scopes}) reuses its verdict.
 */
export function findProtectedPath(all: ProtectedPathSet, value: unknown, options: CheckPathOptions, except?: string): ArgumentsVerdict {
  let anchors = absoluteBases.get(options.bases);
  if (anchors === undefined) absoluteBases.set(options.bases, (anchors = options.bases.filter(isAbsolutePath)));
  const scoped = all.platform.realpathScope?.(anchors);
  let set = all;
  let verdicts: Map<string, PathVerdict> | undefined;
  if (scoped !== undefined) {
    let known = scopes.get(scoped);
    if (known === undefined || known.all !== all || known.bases !== options.bases) scopes.set(scoped, (known = { all, bases: options.bases, set: { ...all, platform: { ...all.platform, realpath: scoped } }, verdicts: [new Map(), new Map()] }));
    set = known.set;
    verdicts = known.verdicts[options.ancestors ? 1 : 0];
  }
  return new ArgumentWalk(set, options, verdicts, except).walk(value, 0) ?? CLEAR;
}

const CLEAR: ArgumentsVerdict = Object.freeze({ kind: 'clear' });

/** One walk of {@link findProtectedPath}: the strings read so far and the way down to the one being read. */
class ArgumentWalk {
  #strings = 0;
  // The way down to the string being read (keys and indexes), spelled out only for a verdict.
  readonly #way: (string | number)[] = [];

  readonly #set: ProtectedPathSet;
  readonly #options: CheckPathOptions;
  readonly #verdicts: Map<string, PathVerdict> | undefined;
  readonly #except: string | undefined;

  constructor(set: ProtectedPathSet, options: CheckPathOptions, verdicts: Map<string, PathVerdict> | undefined, except: string | undefined) {
    this.#set = set;
    this.#options = options;
    this.#verdicts = verdicts;
    this.#except = except;
  }

  walk(item: unknown, depth: number): ArgumentsVerdict | undefined {
    if (depth > ARGUMENT_LIMITS.depth) return { kind: 'unreadable', reason: `nested deeper than ${ARGUMENT_LIMITS.depth} levels` };
    if (typeof item === 'string') return this.#read(item, false);
    if (typeof item !== 'object' || item === null) return undefined;
    const way = this.#way;
    if (Array.isArray(item)) {
      for (let i = 0; i < item.length; i++) {
        way.push(i);
        const found = this.walk(item[i], depth + 1);
        way.pop();
        if (found !== undefined) return found;
      }
      return undefined;
    }
    for (const key in item) {
      if (!Object.hasOwn(item, key) || (depth === 0 && key === this.#except)) continue;
      const named = this.#read(key, true);
      if (named !== undefined) return named;
      way.push(key);
      const found = this.walk((item as Record<string, unknown>)[key], depth + 1);
      way.pop();
      if (found !== undefined) return found;
    }
    return undefined;
  }

  #read(text: string, key: boolean): ArgumentsVerdict | undefined {
    if (++this.#strings > ARGUMENT_LIMITS.strings) return { kind: 'unreadable', reason: `more than ${ARGUMENT_LIMITS.strings} strings` };
    // A key (`path`, `arguments`) is a name the schema chose, read as a path only when it looks like one.
    if (key && !looksLikePath(this.#set, text)) return undefined;
    const verdict = this.#check(text);
    return verdict.protected ? { kind: 'protected', verdict, at: this.#at(key) } : undefined;
  }

  /** The string's verdict: kept from earlier in the scope, else checked (and kept when short). */
  #check(text: string): PathVerdict {
    const verdicts = this.#verdicts;
    if (verdicts === undefined || text.length > MAX_KEPT_LENGTH) return checkPath(this.#set, text, this.#options);
    let verdict = verdicts.get(text);
    if (verdict === undefined) {
      verdict = checkPath(this.#set, text, this.#options);
      if (verdicts.size < MAX_KEPT_VERDICTS) verdicts.set(text, verdict);
    }
    return verdict;
  }

  #at(key: boolean): string {
    return this.#way.reduce<string>((text, step) => (typeof step === 'number' ? `${text}[${step}]` : `${text}.${step}`), '$') + (key ? ' (key)' : '');
  }
}
