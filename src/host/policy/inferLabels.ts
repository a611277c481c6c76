/**
 * Label inference: the labels a tool carries when nobody wrote any, from what is pinned (the
 * server's launch, its `serverInfo` name, and the tool's definition). Pure: no I/O, no state.
 *
 * Sources, each adding (never removing), with the evidence shown to people:
 * 1. **The built-in catalog** (`labelCatalog.ts`) of well-known servers, recognised by a package,
 *    binary or image name in the stdio launch, by a remote URL, or by `serverInfo.name`.
 * 2. **Parameters** of the input schema (nested ones too): a destination (`url`, `to`, `recipient`,
 *    `webhook`, ...) is `egress`; a `body`/`message`/`text` is `egress` when the tool's name sends
 *    or posts (`send_…`, `create_issue`, `reply_…`); a `command`/`cmd`/`script` makes the tool a
 *    command runner (`egress` and `destructive`: a command can send and delete anything).
 * 3. **Names**: verbs that send (`send`, `post`, `publish`, `upload`, ...) are `egress`; verbs
 *    that delete (`delete`, `drop`, `purge`, ...) are `destructive`; reading verbs over private
 *    nouns (`read_file`, `search_emails`, `get_notes`) are `private-data`; fetching and browsing
 *    (`fetch`, `navigate`, `scrape`, `web_search`) are `untrusted-content`.
 * 4. **Annotations**: `destructiveHint: true` → `destructive`, `openWorldHint: true` →
 *    `untrusted-content` (these are in `labels.ts`, which applies them). `readOnlyHint` is the
 *    server's own claim and never removes a label: a tool named `delete_file` that says it is
 *    read-only stays `destructive`.
 * 5. **Unvetted servers**: a server the catalog does not recognise by what the operator wrote (its
 *    launch or URL) brings `untrusted-content` with every result: nobody vetted what it returns.
 *    A `serverInfo.name` match alone gives the catalog's tool labels but does not vet the server
 *    (any server can claim a name).
 *
 * **Command runners** (the one verdict: label inference and the shell-metacharacter asks of
 * `commandRunner.ts` both read {@link InferredLabels.commandRunnerEvidence}), first evidence wins:
 * the catalog's `commandRunners` for the tool's name; a word of the name that is a shell or runs
 * one on its own (`shell`, `bash`, `sh`, `zsh`, `cmd`, `powershell`, `pwsh`, `exec`, `execute`,
 * `terminal`, `subprocess`); a running verb (`run`, `eval`, `evaluate`, `spawn`, `invoke`) with
 * an object (`command`, `script`, `code`, `process`, `python`, `js`, ...: `run_command`,
 * `evaluateScript`); a parameter at any depth named `command`, `commands`, `cmd`, `script`,
 * `shell`, `bash`, `shell_command` or `command_line` (`_`, `-` and case ignored). A runner found
 * by name or parameter is `egress` and `destructive` too.
 *
 * What this cannot see: a tool that leaks through a parameter with an innocent name, or a
 * server that does what its names do not say; the scanner, argument checks and value taint
 * cover parts of that, and explicit labels in the config cover the rest.
 *
 * @module
 */
import { LABEL_CATALOG, type CatalogEntry } from './labelCatalog.js';
import { LABELS, type Label } from './labelNames.js';

/** How a server is launched, as far as inference needs it (structurally a config's `ServerLaunch`). */
export type LaunchEvidence = { readonly kind: 'stdio'; readonly command: string; readonly args: readonly string[] } | { readonly kind: 'http' | 'sse'; readonly url: string };

/** What is known of a server: its launch (what the operator wrote) and its `serverInfo.name` (its claim). */
export interface ServerEvidence {
  readonly launch?: LaunchEvidence | undefined;
  readonly serverInfoName?: string | undefined;
}

/** The catalog entry a server matches, and by what. */
export interface CatalogMatch {
  readonly entry: CatalogEntry;
  /** `package @modelcontextprotocol/server-filesystem`, `url api.githubcopilot.com/mcp`, `serverInfo name "mcp-git"`. */
  readonly by: string;
  /** Recognised by what the operator wrote (launch or URL), not only by the server's own name. */
  readonly vetted: boolean;
}

/** The evidence of the `untrusted-content` an unvetted server brings (and nothing else about its content). */
export const UNVETTED_EVIDENCE = 'inferred: untrusted-content from an unvetted server (not recognised by the built-in catalog from its launch or URL)';

/** The labels inferred for one tool. */
export interface InferredLabels {
  readonly labels: readonly Label[];
  /** Per label, the first evidence for it (`egress from parameter \`to\` of send_email`). */
  readonly evidence: Readonly<Partial<Record<Label, string>>>;
  /** The tool runs commands or code (a shell, `exec`, a browser's `evaluate`): `commandRunnerEvidence` is set. */
  readonly commandRunner: boolean;
  /**
   * Why the tool runs commands, for people (`inferred from its parameter 'command'`,
   * `inferred from the words 'run' + 'script' in its name`, `inferred from the shell catalog (package mcp-shell-server)`),
   * or `undefined` when it does not.
   */
  readonly commandRunnerEvidence?: string | undefined;
  /** The catalog entry the server matched, if any. */
  readonly catalog: CatalogMatch | undefined;
}

/** A tool definition as far as inference reads it. */
export interface ToolEvidence {
  readonly name: string;
  readonly inputSchema?: unknown;
}

const anchored = (re: RegExp): RegExp => new RegExp(`^(?:${re.source})$`, 'i');
const COMPILED = new Map(LABEL_CATALOG.map((e) => [e, { tools: e.tools.map(([re, labels]) => [anchored(re), labels] as const), runners: (e.commandRunners ?? []).map(anchored) }]));

/** The catalog entry `server` matches: by launch or URL first (vetted), else by `serverInfo.name`. */
export function matchCatalog(server: ServerEvidence): CatalogMatch | undefined {
  const launch = server.launch;
  if (launch?.kind === 'stdio') {
    const tokens = [launch.command, ...launch.args].map(packageName);
    for (const entry of LABEL_CATALOG) {
      const hit = tokens.find((t) => entry.packages.some((p) => p.toLowerCase() === t));
      if (hit !== undefined) return { entry, by: `package ${hit}`, vetted: true };
    }
  } else if (launch !== undefined) {
    const where = urlKey(launch.url);
    for (const entry of LABEL_CATALOG) {
      const hit = entry.urls.find((u) => where !== undefined && (where === u || where.startsWith(`${u}/`)));
      if (hit !== undefined) return { entry, by: `url ${hit}`, vetted: true };
    }
  }
  const name = server.serverInfoName?.toLowerCase();
  if (name !== undefined && name !== '') {
    for (const entry of LABEL_CATALOG) {
      if (entry.serverNames.some((n) => n.toLowerCase() === name)) return { entry, by: `serverInfo name ${JSON.stringify(server.serverInfoName)}`, vetted: false };
    }
  }
  return undefined;
}

/**
 * The labels inferred for `tool` of `server` (see the module comment). `vetted` says the operator
 * described the server (explicit labels): then its results do not count as untrusted merely for
 * being unknown. Annotation hints are left to the caller (`labels.ts` applies them).
 */
export function inferLabels(server: ServerEvidence, tool: ToolEvidence, options: { readonly vetted?: boolean; readonly catalog?: CatalogMatch | undefined } = {}): InferredLabels {
  const evidence: Partial<Record<Label, string>> = {};
  const add = (label: Label, why: string): void => {
    if (evidence[label] === undefined) evidence[label] = `inferred: ${label} from ${why}`;
  };
  const catalog = 'catalog' in options ? options.catalog : matchCatalog(server);
  const name = tool.name;
  let catalogRunner: string | undefined;
  let paramRunner: string | undefined;
  if (catalog !== undefined) {
    const compiled = COMPILED.get(catalog.entry);
    let named = false;
    for (const [re, labels] of compiled?.tools ?? []) {
      if (!re.test(name)) continue;
      named = true;
      for (const l of labels) add(l, `the ${catalog.entry.id} catalog (${catalog.by}) for ${name}`);
    }
    if (!named) for (const l of catalog.entry.otherTools ?? []) add(l, `the ${catalog.entry.id} catalog (${catalog.by}): every ${catalog.entry.id} tool`);
    if (compiled?.runners.some((re) => re.test(name)) === true) catalogRunner = `inferred from the ${catalog.entry.id} catalog (${catalog.by})`;
  }
  const words = wordsOf(name);
  const params = parameterNames(tool.inputSchema);
  for (const [p, depth] of params) {
    const key = p.toLowerCase().replace(/[-\s]/g, '_');
    // `to` in a nested object is as often a relation's end (memory's `{ from, to }`) as an addressee.
    if (DESTINATION_PARAMS.has(key) && (depth === 0 || !TOP_LEVEL_ONLY.has(key))) add('egress', `parameter \`${p}\` of ${name}`);
    else if (depth === 0 && CONTENT_PARAMS.has(key) && sends(words)) add('egress', `parameter \`${p}\` of ${name}`);
    if (COMMAND_PARAMS.has(key.replace(/_/g, ''))) {
      paramRunner ??= `inferred from its parameter '${p}'`;
      add('egress', `parameter \`${p}\` of ${name} (it runs commands)`);
      add('destructive', `parameter \`${p}\` of ${name} (it runs commands)`);
    }
  }
  // `get_post` reads a post: a name that starts by reading does not send.
  const verb = READ_VERBS.has(words[0] ?? '') ? undefined : words.find((w) => SEND_VERBS.has(w));
  if (verb !== undefined) add('egress', `the name ${name} (${verb})`);
  const destroy = words.find((w) => DESTROY_VERBS.has(w));
  if (destroy !== undefined) add('destructive', `the name ${name} (${destroy})`);
  const nameRunner = runnerByName(words);
  if (nameRunner !== undefined) {
    add('egress', `the name ${name} (it runs commands)`);
    add('destructive', `the name ${name} (it runs commands)`);
  }
  if (words.some((w) => READ_VERBS.has(w))) {
    const noun = words.find((w) => PRIVATE_NOUNS.has(w));
    if (noun !== undefined) add('private-data', `the name ${name} (reads ${noun})`);
  }
  const web = words.find((w) => WEB_WORDS.has(w));
  if (web !== undefined) add('untrusted-content', `the name ${name} (${web})`);
  if (catalog?.vetted !== true && options.vetted !== true && evidence['untrusted-content'] === undefined) evidence['untrusted-content'] = UNVETTED_EVIDENCE;
  const commandRunnerEvidence = catalogRunner ?? nameRunner ?? paramRunner;
  return Object.freeze({ labels: Object.freeze(LABELS.filter((l) => evidence[l] !== undefined)), evidence: Object.freeze(evidence), commandRunner: commandRunnerEvidence !== undefined, commandRunnerEvidence, catalog });
}

/** Whether `tool` runs commands or code (for argument checks such as shell metacharacters). */
export function isCommandRunner(server: ServerEvidence, tool: ToolEvidence): boolean {
  return inferLabels(server, tool, { vetted: true }).commandRunner;
}

/** The labels a catalog server's tools can bring, before its tools are known (for the static report). */
export function catalogCapabilities(match: CatalogMatch): Label[] {
  const all = new Set<Label>(match.entry.otherTools ?? []);
  for (const [, labels] of match.entry.tools) for (const l of labels) all.add(l);
  return LABELS.filter((l) => all.has(l));
}

const DESTINATION_PARAMS = new Set(['url', 'urls', 'href', 'link', 'endpoint', 'webhook', 'webhook_url', 'callback_url', 'to', 'recipient', 'recipients', 'cc', 'bcc', 'email_to', 'to_email', 'to_address', 'phone_number', 'chat_id', 'channel_id', 'webhookurl', 'callbackurl']);
const TOP_LEVEL_ONLY = new Set(['to', 'cc', 'bcc']);
const CONTENT_PARAMS = new Set(['body', 'message', 'text', 'content', 'comment', 'payload', 'data', 'attachment', 'attachments']);
// Compared without `_`: `shell_command`, `shellCommand`, `command-line`.
const COMMAND_PARAMS = new Set(['command', 'cmd', 'commands', 'shellcommand', 'commandline', 'script', 'bash', 'shell']);
const SEND_VERBS = new Set(['send', 'post', 'publish', 'upload', 'share', 'tweet', 'forward', 'reply', 'notify', 'sms', 'webhook', 'push', 'invite', 'submit']);
// Creating an issue, pull request or comment publishes it.
const PUBLIC_NOUNS = new Set(['issue', 'issues', 'pull', 'pr', 'comment', 'comments', 'review', 'gist', 'discussion', 'release', 'message', 'messages', 'post', 'tweet', 'status']);
const DESTROY_VERBS = new Set(['delete', 'remove', 'drop', 'destroy', 'purge', 'erase', 'truncate', 'wipe', 'kill', 'terminate', 'overwrite', 'uninstall', 'revoke', 'rm']);
// A word that is a shell, or runs one, on its own (`bash`, `exec`, `terminal_run`).
const RUNNER_WORDS = new Set(['shell', 'bash', 'sh', 'zsh', 'powershell', 'pwsh', 'cmd', 'exec', 'execute', 'terminal', 'subprocess']);
// A verb that runs what its object names (`run_command`, `evaluate_script`; `run_tests` is no runner).
const RUN_WORDS = new Set(['run', 'exec', 'execute', 'eval', 'evaluate', 'spawn', 'invoke']);
const RUN_OBJECTS = new Set(['command', 'commands', 'shell', 'bash', 'cmd', 'terminal', 'script', 'code', 'process', 'powershell', 'sh', 'python', 'js', 'javascript']);
const READ_VERBS = new Set(['read', 'get', 'list', 'search', 'open', 'view', 'show', 'find', 'fetch', 'export', 'download', 'query', 'load', 'cat', 'retrieve', 'dump', 'browse']);
const PRIVATE_NOUNS = new Set(['file', 'files', 'directory', 'folder', 'note', 'notes', 'mail', 'mails', 'email', 'emails', 'inbox', 'message', 'messages', 'dm', 'dms', 'document', 'documents', 'contact', 'contacts', 'calendar', 'secret', 'secrets', 'password', 'passwords', 'credential', 'credentials', 'memory', 'memories', 'repo', 'repos', 'repository', 'diff', 'clipboard', 'drive', 'spreadsheet', 'database', 'keychain', 'vault', 'photos', 'env', 'ssh']);
const WEB_WORDS = new Set(['fetch', 'browse', 'navigate', 'scrape', 'crawl', 'webpage', 'web', 'html', 'url', 'rss', 'feed', 'website']);

/** Splits `send_email`, `sendEmail`, `send-email` into lower-case words. */
function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== '')
    .map((w) => w.toLowerCase());
}

/** Why a tool's name says it runs commands (see the module comment), or `undefined`. */
function runnerByName(words: readonly string[]): string | undefined {
  const word = words.find((w) => RUNNER_WORDS.has(w));
  if (word !== undefined) return `inferred from the word '${word}' in its name`;
  const verb = words.find((w) => RUN_WORDS.has(w));
  const object = verb === undefined ? undefined : words.find((w) => RUN_OBJECTS.has(w));
  return object === undefined ? undefined : `inferred from the words '${verb}' + '${object}' in its name`;
}

/** The tool's name sends or publishes: a send verb, or create/add/open over a public noun. */
function sends(words: readonly string[]): boolean {
  if (words.some((w) => SEND_VERBS.has(w))) return true;
  return words.some((w) => w === 'create' || w === 'add' || w === 'open' || w === 'write') && words.some((w) => PUBLIC_NOUNS.has(w));
}

/**
 * The property names of an input schema, nested ones included (`{ options: { url } }`, arrays of objects, `anyOf`
 * branches), breadth first, at most 6 levels and 512 names: inference only adds labels, so a schema past the caps
 * is read as far as they go (the argument checks validate the rest).
 */
function parameterNames(schema: unknown): [name: string, depth: number][] {
  const out: [string, number][] = [];
  let level: unknown[] = [schema];
  for (let depth = 0; depth < 6 && level.length > 0 && out.length < 512; depth++) {
    const next: unknown[] = [];
    for (const node of level) {
      if (typeof node !== 'object' || node === null || Array.isArray(node)) continue;
      const n = node as Record<string, unknown>;
      const props = n['properties'];
      if (typeof props === 'object' && props !== null && !Array.isArray(props)) {
        for (const [key, sub] of Object.entries(props)) {
          if (out.length < 512) out.push([key, depth]);
          next.push(sub);
        }
      }
      if (n['items'] !== undefined) next.push(...(Array.isArray(n['items']) ? n['items'] : [n['items']]));
      for (const k of ['anyOf', 'oneOf', 'allOf'] as const) if (Array.isArray(n[k])) next.push(...(n[k] as unknown[]));
    }
    level = next;
  }
  return out;
}

/** `@scope/name@1.2.3` → `@scope/name`, `…/node_modules/x/dist/index.js` → `x`, `mcp-server-git==1.0` → `mcp-server-git`, `ghcr.io/x/y:tag` → `ghcr.io/x/y`, a path → its last part; lower case. */
function packageName(token: string): string {
  let t = token.trim().toLowerCase().replace(/\\/g, '/');
  // An installed package run by path: `…/node_modules/@scope/name/dist/index.js` → `@scope/name`.
  const installed = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(t);
  if (installed?.[1] !== undefined) return installed[1];
  if (t.includes('/') && !t.startsWith('@') && !t.includes('.') && t.split('/').length > 2) t = t.split('/').pop() ?? t;
  t = t.replace(/(?<=.)@[^/@]*$/, '').replace(/(==|>=|~=|:)[^/]*$/, '');
  if ((t.startsWith('/') || t.startsWith('./') || t.startsWith('..')) && !t.startsWith('@')) t = t.split('/').pop() ?? t;
  return t.replace(/\.(js|mjs|cjs|ts|py|exe)$/, '');
}

function urlKey(url: string): string | undefined {
  try {
    const u = new URL(url);
    return `${u.hostname.toLowerCase()}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return undefined;
  }
}
