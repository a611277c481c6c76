/**
 * The built-in catalog of well-known MCP servers, for label inference (`inferLabels.ts`): how to
 * recognise each (package names in a stdio launch, remote URL hosts, `serverInfo` names) and
 * which labels its tools carry, by tool name.
 *
 * Patterns are matched against the tool's own (un-namespaced) name, case-insensitively, as
 * whole-name regular expressions. Every matching pattern adds; a tool no pattern names gets
 * the entry's `otherTools` labels (for servers whose every tool reads the same kind of data),
 * and the generic rules of `inferLabels.ts` apply to every tool on top.
 *
 * The catalog describes what the published servers do (their READMEs and tool lists); it is
 * data, kept here and nowhere else.
 *
 * @module
 */
import type { Label } from './labelNames.js';

/** One well-known server. */
export interface CatalogEntry {
  /** A short name shown in evidence (`filesystem`, `github`). */
  readonly id: string;
  /** Package, binary or image names that launch it (compared without version suffix, case-insensitively). */
  readonly packages: readonly string[];
  /** Hosts (and optional path prefix) of its remote endpoints, `host` or `host/path`. */
  readonly urls: readonly string[];
  /** Names it gives in `serverInfo.name` (its own claim: gives tool labels, never vets it). */
  readonly serverNames: readonly string[];
  /** Tool-name patterns → labels. */
  readonly tools: readonly (readonly [RegExp, readonly Label[]])[];
  /** Labels of a tool no pattern names. */
  readonly otherTools?: readonly Label[];
  /** Tool-name patterns of tools that run commands or code. */
  readonly commandRunners?: readonly RegExp[];
}

const P: Label = 'private-data';
const U: Label = 'untrusted-content';
const E: Label = 'egress';
const D: Label = 'destructive';

/** The catalog. */
export const LABEL_CATALOG: readonly CatalogEntry[] = Object.freeze([
  {
    id: 'filesystem',
    packages: ['@modelcontextprotocol/server-filesystem', 'mcp/filesystem', 'mcp-server-filesystem'],
    urls: [],
    serverNames: ['secure-filesystem-server', 'filesystem'],
    tools: [
      [/(read_(text_|media_|multiple_)?files?|list_directory(_with_sizes)?|directory_tree|search_files|get_file_info)/, [P]],
      [/(write_file|edit_file|move_file)/, [D]],
    ],
  },
  {
    id: 'fetch',
    packages: ['mcp-server-fetch', 'mcp/fetch', '@modelcontextprotocol/server-fetch', '@kazuph/mcp-fetch', '@tokenizin/mcp-npx-fetch'],
    urls: [],
    serverNames: ['mcp-fetch', 'fetch'],
    tools: [[/fetch(_(html|json|markdown|txt))?/, [U, E]]],
    otherTools: [U],
  },
  {
    id: 'git',
    packages: ['mcp-server-git', 'mcp/git', '@cyanheads/git-mcp-server'],
    urls: [],
    serverNames: ['mcp-git', 'git'],
    tools: [
      [/git_(status|diff(_staged|_unstaged)?|log|show|branch)/, [P]],
      [/git_(reset|checkout|clean|rebase)/, [D]],
      [/git_(push|remote_add)/, [E]],
    ],
  },
  {
    id: 'github',
    packages: ['@modelcontextprotocol/server-github', 'github-mcp-server', 'ghcr.io/github/github-mcp-server', 'mcp/github'],
    urls: ['api.githubcopilot.com/mcp'],
    serverNames: ['github-mcp-server', 'github'],
    // Reads carry the user's private repositories and text anyone can write (issues, comments, READMEs).
    tools: [
      [/(get|list|search)_.*/, [P, U]],
      [/(create|update|add|push|fork|request|submit|assign|reply)_.*/, [E]],
      [/(delete|merge|dismiss)_.*/, [D]],
    ],
    otherTools: [P, U],
  },
  {
    id: 'gitlab',
    packages: ['@modelcontextprotocol/server-gitlab', '@zereight/mcp-gitlab', 'mcp/gitlab'],
    urls: ['gitlab.com/api/v4/mcp'],
    serverNames: ['gitlab', 'better-gitlab-mcp-server', 'gitlab-mcp-server'],
    tools: [
      [/(get|list|search)_.*/, [P, U]],
      [/(create|update|add|push|fork|publish|retry)_.*/, [E]],
      [/(delete|merge|cancel)_.*/, [D]],
    ],
    otherTools: [P, U],
  },
  {
    id: 'slack',
    packages: ['@modelcontextprotocol/server-slack', '@zencoderai/slack-mcp-server', 'slack-mcp-server', 'mcp/slack'],
    urls: ['mcp.slack.com'],
    serverNames: ['slack', 'slack-mcp-server'],
    tools: [
      [/(slack_)?(get|list|search|read)_.*/, [P, U]],
      [/(slack_)?(post|reply|send|add_reaction|update|upload|schedule)_?.*/, [E]],
      [/(slack_)?(delete|archive|remove)_.*/, [D]],
    ],
    otherTools: [P, U],
  },
  {
    id: 'mail',
    packages: ['@gongrzhe/server-gmail-autoauth-mcp', '@shinzolabs/gmail-mcp', 'mcp-gmail', 'gmail-mcp', 'mcp-server-gmail', '@modelcontextprotocol/server-gmail', 'mcp-email-server', 'outlook-mcp'],
    urls: ['gmailmcp.googleapis.com'],
    serverNames: ['gmail', 'gmail-mcp', 'email', 'mail', 'outlook'],
    // Mail is private and written by others.
    tools: [
      [/.*(read|get|list|search|fetch|view|open).*/, [P, U]],
      [/.*(send|reply|forward|draft).*/, [E]],
      [/.*(delete|trash|remove|purge).*/, [D]],
    ],
    otherTools: [P, U],
  },
  {
    id: 'memory',
    packages: ['@modelcontextprotocol/server-memory', 'mcp/memory', 'basic-memory', '@mem0/mcp-server'],
    urls: [],
    serverNames: ['memory-server', 'memory', 'basic-memory'],
    tools: [
      [/(read_graph|search_nodes|open_nodes|read_note|view_note|search_notes?|read_content|build_context|recent_activity|search_memor(y|ies)|get_memor(y|ies))/, [P]],
      [/(delete|remove)_.*/, [D]],
    ],
  },
  {
    id: 'browser',
    packages: ['@modelcontextprotocol/server-puppeteer', 'mcp/puppeteer', '@playwright/mcp', '@executeautomation/playwright-mcp-server', 'mcp/playwright', '@browsermcp/mcp'],
    urls: [],
    serverNames: ['Playwright', 'playwright', 'playwright-mcp', 'example-servers/puppeteer', 'puppeteer', 'browsermcp'],
    // Every page is text nobody vetted; navigating, submitting and scripting send data out.
    tools: [[/.*(navigate|goto|click|fill|type|select|submit|evaluate|post|put|patch|delete|upload|press|get|request).*/, [U, E]]],
    otherTools: [U],
    commandRunners: [/.*evaluate.*/],
  },
  {
    id: 'database',
    packages: ['@modelcontextprotocol/server-postgres', 'mcp-server-sqlite', '@modelcontextprotocol/server-sqlite', 'mcp/postgres', 'mcp/sqlite', '@benborla29/mcp-server-mysql', 'mongodb-mcp-server', '@supabase/mcp-server-supabase'],
    urls: [],
    serverNames: ['postgres', 'sqlite', 'mysql', 'mongodb', 'supabase', 'example-servers/postgres'],
    tools: [
      [/(query|read_query|list_tables|describe_table|find|aggregate|execute_sql|select).*/, [P]],
      [/(write_query|create_table|insert|update|delete|drop|execute_sql|apply_migration).*/, [D]],
    ],
    otherTools: [P],
  },
  {
    id: 'shell',
    packages: ['mcp-shell-server', 'mcp-server-shell', '@wonderwhy-er/desktop-commander', 'desktop-commander', 'mcp-server-commands', '@mkusaka/mcp-shell-server'],
    urls: [],
    serverNames: ['shell', 'mcp-shell-server', 'desktop-commander', 'mcp-server-commands'],
    // A command can read any file, send anything anywhere and delete anything.
    tools: [
      [/.*(run|exec|execute|start_process|interact_with_process|command|shell|terminal).*/, [P, E, D]],
      [/(read_file|read_multiple_files|list_directory|search_files|search_code|get_file_info|read_process_output)/, [P]],
      [/(write_file|edit_block|move_file|kill_process|force_terminate)/, [D]],
    ],
    commandRunners: [/.*(run|exec|execute|start_process|interact_with_process|command|shell|terminal).*/],
  },
] satisfies CatalogEntry[]);
