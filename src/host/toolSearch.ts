/**
 * Offline tool search: BM25F ranking over tool definitions, for the gateway's `search_tools`
 * (exposure `search`) and for hosts that pick a few tools per turn.
 *
 * Each tool is a document with four fields, weighted: its name (split at camelCase, `_`, `-`,
 * `.`, `/`; weight 3), title (2), description (1) and parameter names (the `inputSchema`
 * properties and, one level down, the properties of object- and array-of-object-valued
 * parameters; weight 1.5). Terms are lowercased ASCII words and numbers with a light plural
 * fold ("files" → "file"); a few English stop words are dropped. Scoring is BM25F with
 * k1 = 1.2 and b = 0.75 per field: per-field term frequencies are length-normalised, weighted
 * and summed before the saturation, and multiplied by the term's IDF
 * `ln(1 + (N - df + 0.5) / (df + 0.5))`. Equal scores are ordered by exposed name, then by
 * position in the input, so results are deterministic.
 *
 * @see https://en.wikipedia.org/wiki/Okapi_BM25
 * @module
 */
import type { Tool } from '../protocol/model/tool.js';

/** One searchable tool: the exposed name it is called by, and its definition. */
export interface SearchableTool {
  readonly name: string;
  readonly tool: Tool;
}

/** A search hit: the tool's full definition and its score (higher is better). */
export interface ToolSearchResult extends SearchableTool {
  readonly score: number;
}

/** Options of {@link ToolSearchIndex.search}. */
export interface ToolSearchOptions {
  /** Most results. Default 5. */
  readonly limit?: number;
}

/** BM25 parameters and field weights (exported for documentation and tests). */
export const TOOL_SEARCH_PARAMETERS = {
  k1: 1.2,
  b: 0.75,
  weights: { name: 3, title: 2, description: 1, parameters: 1.5 },
} as const;

type Field = keyof typeof TOOL_SEARCH_PARAMETERS.weights;
const FIELDS: readonly Field[] = ['name', 'title', 'description', 'parameters'];

const STOP_WORDS = new Set(['a', 'an', 'and', 'are', 'as', 'at', 'be', 'by', 'for', 'from', 'in', 'into', 'is', 'it', 'of', 'on', 'or', 'that', 'the', 'this', 'to', 'with']);

/**
 * Splits text into search terms: camelCase and acronym boundaries, any non-alphanumeric
 * character, lowercased, stop words dropped, plurals folded.
 */
export function tokenize(text: string): string[] {
  const spaced = text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/([A-Za-z])([0-9])/g, '$1 $2')
    .toLowerCase();
  const out: string[] = [];
  for (const word of spaced.split(/[^a-z0-9]+/)) {
    if (word === '' || STOP_WORDS.has(word)) continue;
    out.push(fold(word));
  }
  return out;
}

function fold(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && /(ch|sh|x|ss)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us')) return word.slice(0, -1);
  return word;
}

/** Parameter names of an input schema: its properties and, one level down, nested object properties. */
export function parameterNames(schema: unknown): string[] {
  const names: string[] = [];
  const propertiesOf = (node: unknown): Record<string, unknown> | undefined => {
    if (typeof node !== 'object' || node === null) return undefined;
    const properties = (node as Record<string, unknown>)['properties'];
    return typeof properties === 'object' && properties !== null && !Array.isArray(properties) ? (properties as Record<string, unknown>) : undefined;
  };
  for (const [name, child] of Object.entries(propertiesOf(schema) ?? {})) {
    names.push(name);
    const items = typeof child === 'object' && child !== null ? (child as Record<string, unknown>)['items'] : undefined;
    for (const nested of [propertiesOf(child), propertiesOf(items)]) names.push(...Object.keys(nested ?? {}));
  }
  return names;
}

interface Document {
  readonly entry: SearchableTool;
  readonly index: number;
  /** Per field: term → frequency, and the field's length in terms. */
  readonly fields: Record<Field, { readonly tf: Map<string, number>; readonly length: number }>;
}

/** An immutable BM25F index over a tool list. */
export class ToolSearchIndex {
  readonly #documents: readonly Document[];
  readonly #averageLength: Record<Field, number>;
  readonly #documentFrequency = new Map<string, number>();

  constructor(tools: readonly SearchableTool[]) {
    this.#documents = tools.map((entry, index) => {
      const text: Record<Field, string[]> = {
        name: tokenize(entry.name),
        title: tokenize(entry.tool.title ?? entry.tool.annotations?.title ?? ''),
        description: tokenize(entry.tool.description ?? ''),
        parameters: parameterNames(entry.tool.inputSchema).flatMap(tokenize),
      };
      const fields = {} as Document['fields'];
      const seen = new Set<string>();
      for (const field of FIELDS) {
        const tf = new Map<string, number>();
        for (const term of text[field]) {
          tf.set(term, (tf.get(term) ?? 0) + 1);
          seen.add(term);
        }
        fields[field] = { tf, length: text[field].length };
      }
      for (const term of seen) this.#documentFrequency.set(term, (this.#documentFrequency.get(term) ?? 0) + 1);
      return { entry, index, fields };
    });
    const count = Math.max(this.#documents.length, 1);
    this.#averageLength = Object.fromEntries(FIELDS.map((f) => [f, this.#documents.reduce((sum, d) => sum + d.fields[f].length, 0) / count])) as Record<Field, number>;
  }

  /** How many tools are indexed. */
  get size(): number {
    return this.#documents.length;
  }

  /** The best matches for `query` (full definitions, scores > 0), best first. */
  search(query: string, options: ToolSearchOptions = {}): ToolSearchResult[] {
    const limit = options.limit ?? 5;
    const terms = [...new Set(tokenize(query))];
    if (terms.length === 0 || limit <= 0) return [];
    const { k1, b, weights } = TOOL_SEARCH_PARAMETERS;
    const total = this.#documents.length;
    const scored: { doc: Document; score: number }[] = [];
    for (const doc of this.#documents) {
      let score = 0;
      for (const term of terms) {
        const df = this.#documentFrequency.get(term);
        if (df === undefined) continue;
        let weighted = 0;
        for (const field of FIELDS) {
          const tf = doc.fields[field].tf.get(term);
          if (tf === undefined) continue;
          const average = this.#averageLength[field] || 1;
          weighted += (weights[field] * tf) / (1 - b + (b * doc.fields[field].length) / average);
        }
        if (weighted === 0) continue;
        const idf = Math.log(1 + (total - df + 0.5) / (df + 0.5));
        score += (idf * weighted * (k1 + 1)) / (weighted + k1);
      }
      if (score > 0) scored.push({ doc, score });
    }
    scored.sort((x, y) => y.score - x.score || compare(x.doc.entry.name, y.doc.entry.name) || x.doc.index - y.doc.index);
    return scored.slice(0, limit).map(({ doc, score }) => ({ name: doc.entry.name, tool: doc.entry.tool, score }));
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
