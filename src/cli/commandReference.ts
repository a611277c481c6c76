/**
 * The command reference, `docs/reference/commands.md`, rendered from the command declarations
 * (`scripts/genReference.ts` writes it; a unit test fails when the committed file is stale).
 *
 * @module
 */
import { optionLabel, optionText, type Command } from './command.js';

/** A table cell: pipes escaped, one line. */
function cell(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
}

/** Inline code that survives backticks and pipes in the text. */
function code(text: string): string {
  return text.includes('`') ? `\`\` ${cell(text)} \`\`` : `\`${cell(text)}\``;
}

/** The Markdown of one command. */
function renderCommand(command: Command): string {
  const parts = [`## switchboard ${command.name}`, `${command.summary[0]?.toUpperCase() ?? ''}${command.summary.slice(1)}.`];
  parts.push(['```', ...command.usage.map((u) => `switchboard ${command.name} ${u}`.trimEnd()), '```'].join('\n'));
  parts.push(['```text', command.description.trimEnd(), '```'].join('\n'));
  if (command.positionals !== undefined && command.positionals.length > 0) {
    parts.push(['| Argument | Meaning |', '|---|---|', ...command.positionals.map((p) => `| ${code(p.name)} | ${cell(p.description)} |`)].join('\n'));
  }
  const options = Object.entries(command.options);
  if (options.length > 0) {
    parts.push(['| Option | Meaning |', '|---|---|', ...options.map(([name, o]) => `| ${code(optionLabel(name, o))} | ${cell(optionText(o))} |`)].join('\n'));
  }
  if (command.notes !== undefined) parts.push(['```text', command.notes.trimEnd(), '```'].join('\n'));
  return parts.join('\n\n');
}

/** The whole reference: a table of the commands, then each one. */
export function renderReference(commands: readonly Command[]): string {
  const index = ['| Command | What it does |', '|---|---|', ...commands.map((c) => `| [\`${c.name}\`](#switchboard-${c.name}) | ${cell(c.summary)} |`)].join('\n');
  const header = `# The \`switchboard\` command

<!-- Generated from src/cli/commands/*.ts by \`npm run reference\`; do not edit by hand. -->

Every command also takes \`-h\`/\`--help\`, which prints the same text as this page. A usage
error prints one line and exits 2; a failure prints one line and exits 1.`;
  return `${[header, index, ...commands.map(renderCommand)].join('\n\n')}\n`;
}
