/**
 * Supply-chain checks of a stdio launch, before anything runs (`launchPackages.ts` reads the
 * packages off the command line):
 *
 * - `typosquat` (flag): the package name is one edit (insertion, deletion, substitution or
 *   adjacent swap: Damerau-Levenshtein 1) from a well-known MCP server package, such as
 *   `@modelcontextprotocol/server-githb` or `@modelcontextprotocol-/server-github`;
 * - `confusable` (flag): not that close as written, but the same (or one edit apart) once
 *   look-alikes are folded: Cyrillic and Greek homoglyphs, `I`/`1` for `l`, `0` for `o`,
 *   `rn` for `m`, `vv` for `w`, `-`/`_`/`.` swapped or dropped, case, the `@` of a scope
 *   dropped (`modelcontextprotocol/server-github` is a GitHub repository to npx), or an npm
 *   alias that shows a well-known name but fetches another package (`name@npm:other`);
 * - `unpinned` (warning): `npx -y pkg` with no version, a range or a tag (`@latest`, `^1.2.0`),
 *   `uvx pkg` without `==x.y.z`, a container image by tag rather than by digest, a git source
 *   not at a commit: what runs can change under an approved launch. The fix is in the finding.
 *
 * A flag makes the launch need a person's approval that shows the finding (`--yes` does not
 * give it; see `launchConsent.ts`); a warning is shown and does not stop the launch. Names
 * are compared per ecosystem with a built-in list ({@link WELL_KNOWN_PACKAGES}); a name on the
 * list is never flagged. Python names are compared after PEP 503 normalisation, under which
 * `mcp_server_fetch` IS `mcp-server-fetch`.
 *
 * @see https://peps.python.org/pep-0503/#normalized-names
 * @see https://www.unicode.org/reports/tr39/#Confusable_Detection
 * @module
 */
import { launchPackages, type LaunchPackage, type PackageEcosystem } from './launchPackages.js';
import { oneEditApart } from './scanner/rules/lookalikes.js';
import { skeleton } from './scanner/text.js';

/** Well-known MCP server packages by ecosystem: the names a squatter imitates. */
export const WELL_KNOWN_PACKAGES: Readonly<Record<PackageEcosystem, readonly string[]>> = {
  npm: [
    ...['filesystem', 'github', 'gitlab', 'slack', 'google-maps', 'postgres', 'puppeteer', 'brave-search', 'memory', 'everything', 'sequential-thinking', 'gdrive', 'redis', 'aws-kb-retrieval', 'everart'].map(
      (name) => `@modelcontextprotocol/server-${name}`,
    ),
    '@modelcontextprotocol/inspector',
    '@playwright/mcp',
    '@executeautomation/playwright-mcp-server',
    '@notionhq/notion-mcp-server',
    '@stripe/mcp',
    '@supabase/mcp-server-supabase',
    '@upstash/context7-mcp',
    '@sentry/mcp-server',
    '@browserbasehq/mcp',
    '@cloudflare/mcp-server-cloudflare',
    '@wonderwhy-er/desktop-commander',
    'firecrawl-mcp',
    'mcp-remote',
    'figma-developer-mcp',
  ],
  pypi: ['mcp-server-fetch', 'mcp-server-git', 'mcp-server-time', 'mcp-server-sqlite', 'mcp-server-sentry', 'mcp-server-qdrant', 'awslabs.aws-documentation-mcp-server'],
  docker: [
    ...['github', 'fetch', 'filesystem', 'git', 'postgres', 'puppeteer', 'playwright', 'slack', 'time', 'memory', 'sqlite', 'brave-search', 'everything', 'sequentialthinking'].map((name) => `mcp/${name}`),
    'ghcr.io/github/github-mcp-server',
  ],
};

/** What a check found on a launched package. */
export type LaunchFindingKind = 'typosquat' | 'confusable' | 'unpinned';

/** One finding on a launch: a flag needs a person's approval showing it; a warning is shown. */
export interface LaunchFinding {
  readonly kind: LaunchFindingKind;
  readonly severity: 'flag' | 'warn';
  /** The package argument as written. */
  readonly package: string;
  /** The well-known package it imitates (typosquat, confusable). */
  readonly imitates?: string;
  /** One line for a person: what was found and the fix. */
  readonly message: string;
}

/** Shortest well-known name a one-edit look-alike is judged on (all of the list is longer). */
const MIN_EDIT_LENGTH = 6;

/** A name as its registry identifies it: PEP 503 for Python, the Docker Hub defaults for images, as written for npm. */
function identity(ecosystem: PackageEcosystem, name: string): string {
  if (ecosystem === 'pypi') return name.toLowerCase().replace(/[-_.]+/g, '-');
  if (ecosystem === 'docker') return name.replace(/^(?:docker\.io|index\.docker\.io|registry-1\.docker\.io)\//, '').replace(/^library\//, '');
  return name;
}

/** A package name's look-alike skeleton: `I` read as `l` before case folding, then {@link skeleton}, `@` dropped, `rn`→`m`, `vv`→`w`. */
function packageSkeleton(name: string): string {
  return skeleton(name.replace(/I/g, 'l')).replace(/@/g, '').replace(/rn/g, 'm').replace(/vv/g, 'w');
}

const known = new Map<PackageEcosystem, { readonly ids: ReadonlySet<string>; readonly skeletons: readonly (readonly [string, string])[] }>();
/** The list of `ecosystem`: identities, and each name with its skeleton. */
function knownOf(ecosystem: PackageEcosystem): { readonly ids: ReadonlySet<string>; readonly skeletons: readonly (readonly [string, string])[] } {
  let entry = known.get(ecosystem);
  if (entry === undefined) {
    const names = WELL_KNOWN_PACKAGES[ecosystem];
    entry = { ids: new Set(names.map((n) => identity(ecosystem, n))), skeletons: names.map((n) => [n, packageSkeleton(n)] as const) };
    known.set(ecosystem, entry);
  }
  return entry;
}

/** The well-known package `name` imitates, and how; undefined when it is one, or like none. */
export function imitation(ecosystem: PackageEcosystem, name: string): { kind: 'typosquat' | 'confusable'; imitates: string } | undefined {
  const list = knownOf(ecosystem);
  const id = identity(ecosystem, name);
  if (list.ids.has(id)) return undefined;
  const mine = packageSkeleton(id);
  for (const [wellKnown, theirs] of list.skeletons) {
    const target = identity(ecosystem, wellKnown);
    if (mine === theirs) return { kind: 'confusable', imitates: wellKnown };
    if (target.length >= MIN_EDIT_LENGTH && oneEditApart(id, target)) return { kind: 'typosquat', imitates: wellKnown };
    if (theirs.length >= MIN_EDIT_LENGTH && oneEditApart(mine, theirs)) return { kind: 'confusable', imitates: wellKnown };
  }
  return undefined;
}

/** The pin a fix names, per ecosystem. */
function pinFix(pkg: LaunchPackage): string {
  if (pkg.ecosystem === 'docker') return `pin the image by digest: ${pkg.name}@sha256:<digest> (docker pull ${pkg.spec}, then docker inspect --format '{{index .RepoDigests 0}}' ${pkg.spec})`;
  // A git or URL source (an unscoped name with a slash): only a commit pins it.
  const source = !pkg.name.startsWith('@') && pkg.name.includes('/');
  if (pkg.ecosystem === 'pypi') return source ? `pin a commit: ${pkg.spec.replace(/@[^@/]*$/, '')}@<40-hex commit>` : `pin one release: ${pkg.name}==x.y.z`;
  if (source) return `pin a commit: ${pkg.spec.replace(/#.*$/, '')}#<40-hex commit>`;
  return `pin one release: ${pkg.alias !== undefined ? `${pkg.alias}@npm:` : ''}${pkg.name}@x.y.z (npm view ${pkg.name} version)`;
}

/** The findings on one package (see the module comment). */
export function packageFindings(pkg: LaunchPackage): LaunchFinding[] {
  const findings: LaunchFinding[] = [];
  const shown = JSON.stringify(pkg.spec);
  const like = imitation(pkg.ecosystem, pkg.name);
  if (like !== undefined) {
    const how = like.kind === 'typosquat' ? 'is one edit away from' : 'looks like';
    findings.push({ kind: like.kind, severity: 'flag', package: pkg.spec, imitates: like.imitates, message: `${pkg.runner} ${shown}: the package ${JSON.stringify(pkg.name)} ${how} the well-known ${JSON.stringify(like.imitates)} but is not it (a possible ${like.kind === 'typosquat' ? 'typosquat' : 'look-alike'})` });
  } else if (pkg.alias !== undefined && identity(pkg.ecosystem, pkg.alias) !== identity(pkg.ecosystem, pkg.name)) {
    // An alias shows one name and fetches another: a finding when the name shown is, or looks like, a well-known one.
    const imitates = knownOf(pkg.ecosystem).ids.has(identity(pkg.ecosystem, pkg.alias)) ? pkg.alias : imitation(pkg.ecosystem, pkg.alias)?.imitates;
    if (imitates !== undefined) findings.push({ kind: 'confusable', severity: 'flag', package: pkg.spec, imitates, message: `${pkg.runner} ${shown}: an alias that shows ${JSON.stringify(pkg.alias)} but fetches ${JSON.stringify(pkg.name)}` });
  }
  if (!pkg.pinned) {
    const what = pkg.version === undefined ? (pkg.ecosystem === 'docker' ? 'no tag (latest)' : 'no version') : pkg.ecosystem === 'docker' ? `a tag (${JSON.stringify(pkg.version)}), which can be moved` : `${JSON.stringify(pkg.version)}, not one exact release`;
    findings.push({ kind: 'unpinned', severity: 'warn', package: pkg.spec, message: `${pkg.runner} ${shown} is not pinned: ${what}, so whatever is published next runs under this approval; ${pinFix(pkg)}` });
  }
  return findings;
}

/** The supply-chain findings of the launch `command args` (none for a command that fetches nothing). */
export function launchFindings(command: string, args: readonly string[]): LaunchFinding[] {
  return launchPackages(command, args).flatMap(packageFindings);
}

/** The flags of `findings` as stable strings (`typosquat:<package>~<imitates>`): what a person's approval of a flagged launch acknowledges. */
export function acknowledgedFlags(findings: readonly LaunchFinding[]): string[] {
  return findings.filter((f) => f.severity === 'flag').map((f) => `${f.kind}:${f.package}~${f.imitates ?? ''}`);
}
