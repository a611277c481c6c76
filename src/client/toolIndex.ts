/**
 * What the client knows about the server's tools: which to surface (tools whose
 * `x-mcp-header` annotations break the rules are dropped, with a warning naming the tool and
 * the reason) and how to check a result's `structuredContent` against the tool's
 * `outputSchema` (compiled once per schema; a schema the compiler refuses, such as one with
 * a network `$ref`, is never fetched: validation is skipped with a warning).
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/server/tools#output-schema
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http
 * @module
 */
import { compileJsonSchema, type CompiledJsonSchema } from '../protocol/jsonSchema.js';
import type { Tool } from '../protocol/model/tool.js';
import type { CallToolResult } from '../protocol/model/tools.js';
import { extractMcpHeaders } from '../protocol/xMcpHeader.js';
import { McpError, McpErrorCode } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { formatIssues, type ValidationResult } from '../util/schema.js';

/**
 * A compiled validator (`settled` once a schema compiled by ajv, loaded lazily, is ready),
 * or the reason the schema was refused.
 */
type Validator = { readonly ok: true; readonly compiled: CompiledJsonSchema; settled: boolean } | { readonly ok: false; readonly reason: string };

/** Tools seen in `tools/list` answers and their output validators. */
export class ToolIndex {
  readonly #logger: Logger;
  readonly #tools = new Map<string, Tool>();
  readonly #validators = new Map<string, Validator>();
  readonly #warned = new Set<string>();

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  #warnOnce(key: string, message: string, fields: Record<string, unknown>): void {
    if (this.#warned.has(key)) return;
    this.#warned.add(key);
    this.#logger.warn(message, fields);
  }

  /** Drops tools with invalid `x-mcp-header` annotations; remembers the others by name. */
  surface(tools: readonly Tool[]): Tool[] {
    const kept: Tool[] = [];
    for (const tool of tools) {
      const { problems } = extractMcpHeaders(tool.inputSchema);
      if (problems.length > 0) {
        this.#tools.delete(tool.name);
        this.#warnOnce(`header:${tool.name}:${problems.join(';')}`, `dropped tool ${JSON.stringify(tool.name)}: invalid x-mcp-header (${problems.join('; ')})`, {
          tool: tool.name,
          reasons: problems,
        });
        continue;
      }
      this.#tools.set(tool.name, tool);
      kept.push(tool);
    }
    return kept;
  }

  /** The last definition seen for `name`. */
  get(name: string): Tool | undefined {
    return this.#tools.get(name);
  }

  /** Forgets every tool (after `notifications/tools/list_changed`, definitions may change). */
  clear(): void {
    this.#tools.clear();
  }

  #validator(schema: Readonly<Record<string, unknown>>): Validator {
    let text: string;
    try {
      text = JSON.stringify(schema);
    } catch {
      return { ok: false, reason: 'the schema is not serializable' };
    }
    let hit = this.#validators.get(text);
    if (hit === undefined) {
      try {
        const entry: Validator = { ok: true, compiled: compileJsonSchema(schema), settled: false };
        entry.compiled.ready.then(
          () => {
            entry.settled = true;
          },
          (error: unknown) => {
            if (this.#validators.get(text) === entry) this.#validators.set(text, { ok: false, reason: error instanceof Error ? error.message : String(error) });
          },
        );
        hit = entry;
      } catch (error) {
        hit = { ok: false, reason: error instanceof Error ? error.message : String(error) };
      }
      if (this.#validators.size >= 500) this.#validators.clear();
      this.#validators.set(text, hit);
    }
    return hit;
  }

  /**
   * Checks a successful result of a known tool against its `outputSchema`. Throws (or, while
   * a schema that needs ajv is being compiled, rejects with) `ERR_MCP_INVALID_RESPONSE` when
   * `structuredContent` is missing or does not conform.
   */
  check(name: string, result: CallToolResult): void | Promise<void> {
    const schema = this.#tools.get(name)?.outputSchema;
    if (schema === undefined || result.isError === true) return;
    const validator = this.#validator(schema);
    if (validator.ok && !validator.settled) {
      // Runs after the handlers registered in #validator: by then it is settled or refused.
      const again = (): void | Promise<void> => this.check(name, result);
      return validator.compiled.ready.then(again, again);
    }
    if (!validator.ok) {
      this.#warnOnce(`schema:${name}:${validator.reason}`, `not validating the output of tool ${JSON.stringify(name)}: its outputSchema was refused (${validator.reason})`, {
        tool: name,
      });
      return;
    }
    if (result.structuredContent === undefined) {
      throw new McpError(McpErrorCode.InvalidResponse, `Tool ${JSON.stringify(name)} has an outputSchema but returned no structuredContent`, { cause: result });
    }
    const checked = validator.compiled.validate(result.structuredContent);
    if (checked instanceof Promise) return checked.then((c) => ToolIndex.#conform(name, result, c));
    ToolIndex.#conform(name, result, checked);
  }

  static #conform(name: string, result: CallToolResult, checked: ValidationResult<unknown>): void {
    if (!checked.ok) {
      throw new McpError(
        McpErrorCode.InvalidResponse,
        `The structuredContent of tool ${JSON.stringify(name)} does not match its outputSchema: ${formatIssues(checked.issues.slice(0, 1))}`,
        { cause: result },
      );
    }
  }
}
