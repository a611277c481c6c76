/**
 * RFC 6570 URI templates: expansion (levels 1–4) and matching a URI back to variables.
 *
 * Matching is the inverse of expansion for the common cases resource templates use:
 * simple `{var}`, reserved `{+var}`, fragment `{#var}`, label `{.var}`, path `{/var}` and
 * `{/var*}`, path-parameter `{;var}`, and query `{?a,b}` / `{&c}` expressions.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6570
 * @module
 */

/** Variable values: a string, or a list for exploded/list expressions. */
export type UriVariables = Readonly<Record<string, string | readonly string[]>>;

interface VarSpec {
  readonly name: string;
  readonly explode: boolean;
  readonly prefix: number | undefined;
}

interface Expression {
  readonly operator: '' | '+' | '#' | '.' | '/' | ';' | '?' | '&';
  readonly vars: readonly VarSpec[];
}

type Part = string | Expression;

interface Capture {
  readonly spec: VarSpec;
  readonly operator: Expression['operator'];
}

const OPERATORS = new Set(['+', '#', '.', '/', ';', '?', '&']);
const VARNAME = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*$/;

/** A parsed template; build once, expand and match many times. */
export class UriTemplate {
  /** The template text. */
  readonly template: string;
  /** Every variable name, in order of appearance. */
  readonly variableNames: readonly string[];
  readonly #parts: readonly Part[];
  readonly #regex: RegExp;
  readonly #captures: readonly Capture[];

  constructor(template: string) {
    if (template.length > 4096) throw new TypeError('URI template is too long');
    this.template = template;
    this.#parts = parse(template);
    const names: string[] = [];
    for (const part of this.#parts) if (typeof part !== 'string') for (const v of part.vars) names.push(v.name);
    this.variableNames = names;
    const { regex, captures } = compileMatcher(this.#parts);
    this.#regex = regex;
    this.#captures = captures;
  }

  /** True when the text contains at least one `{...}` expression. */
  static isTemplate(text: string): boolean {
    return /\{[^{}]+\}/.test(text);
  }

  /** Expands the template with the given variables (undefined ones are skipped). */
  expand(variables: UriVariables): string {
    let out = '';
    for (const part of this.#parts) out += typeof part === 'string' ? encodeLiteral(part) : expandExpression(part, variables);
    return out;
  }

  /** The variables that expand to `uri`, or undefined when it does not match. */
  match(uri: string): Record<string, string | string[]> | undefined {
    const m = this.#regex.exec(uri);
    if (m === null) return undefined;
    const out: Record<string, string | string[]> = {};
    for (let i = 0; i < this.#captures.length; i++) {
      const raw = m[i + 1];
      if (raw === undefined) continue;
      const { spec, operator } = this.#captures[i] as Capture;
      const value = stripNamed(raw, spec.name, operator);
      if (spec.explode) {
        const sep = operator === '/' ? '/' : operator === '.' ? '.' : ',';
        out[spec.name] = value.split(sep).map(safeDecode);
      } else {
        out[spec.name] = safeDecode(value);
      }
    }
    return out;
  }
}

function parse(template: string): Part[] {
  const parts: Part[] = [];
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf('{', i);
    if (open === -1) {
      parts.push(template.slice(i));
      break;
    }
    if (open > i) parts.push(template.slice(i, open));
    const close = template.indexOf('}', open);
    if (close === -1) throw new TypeError(`unclosed expression in URI template ${JSON.stringify(template)}`);
    let body = template.slice(open + 1, close);
    let operator: Expression['operator'] = '';
    if (body.length > 0 && OPERATORS.has(body[0] as string)) {
      operator = body[0] as Expression['operator'];
      body = body.slice(1);
    }
    const vars = body.split(',').map((raw): VarSpec => {
      let name = raw;
      let explode = false;
      let prefix: number | undefined;
      if (name.endsWith('*')) {
        explode = true;
        name = name.slice(0, -1);
      } else {
        const colon = name.indexOf(':');
        if (colon !== -1) {
          prefix = Number(name.slice(colon + 1));
          if (!Number.isInteger(prefix) || prefix <= 0 || prefix >= 10000) throw new TypeError(`invalid prefix in ${JSON.stringify(raw)}`);
          name = name.slice(0, colon);
        }
      }
      if (!VARNAME.test(name)) throw new TypeError(`invalid variable name ${JSON.stringify(name)} in URI template`);
      return { name, explode, prefix };
    });
    parts.push({ operator, vars });
    i = close + 1;
  }
  return parts;
}

function encodeLiteral(text: string): string {
  return text.replace(/[^A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]/g, (c) => encodeURIComponent(c));
}

function encodeValue(value: string, reserved: boolean): string {
  if (reserved) return encodeURI(value).replace(/%25([0-9A-Fa-f]{2})/g, '%$1');
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function expandExpression(expr: Expression, variables: UriVariables): string {
  const op = expr.operator;
  const first = op === '' || op === '+' ? '' : op === '#' ? '#' : op;
  const sep = op === '' || op === '+' || op === '#' ? ',' : op === '?' || op === '&' ? '&' : op;
  const named = op === ';' || op === '?' || op === '&';
  const reserved = op === '+' || op === '#';
  const pieces: string[] = [];
  for (const spec of expr.vars) {
    const value = variables[spec.name];
    if (value === undefined) continue;
    if (typeof value === 'string') {
      const v = spec.prefix === undefined ? value : [...value].slice(0, spec.prefix).join('');
      const enc = encodeValue(v, reserved);
      pieces.push(named ? (enc === '' && op === ';' ? spec.name : `${spec.name}=${enc}`) : enc);
    } else {
      if (value.length === 0) continue;
      if (spec.explode) {
        for (const item of value) pieces.push(named ? `${spec.name}=${encodeValue(item, reserved)}` : encodeValue(item, reserved));
      } else {
        const joined = value.map((item) => encodeValue(item, reserved)).join(',');
        pieces.push(named ? `${spec.name}=${joined}` : joined);
      }
    }
  }
  return pieces.length === 0 ? '' : first + pieces.join(sep);
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function compileMatcher(parts: readonly Part[]): { regex: RegExp; captures: { spec: VarSpec; operator: Expression['operator'] }[] } {
  let source = '^';
  const captures: { spec: VarSpec; operator: Expression['operator'] }[] = [];
  for (const part of parts) {
    if (typeof part === 'string') {
      source += escapeRegex(part);
      continue;
    }
    const op = part.operator;
    part.vars.forEach((spec, index) => {
      const lead = index === 0 ? (op === '' || op === '+' ? '' : op === '#' ? '#' : op) : op === '?' ? '&' : op === '' || op === '+' || op === '#' ? ',' : op;
      // What one value may contain: simple values stop at any delimiter, reserved ones at few.
      const body =
        op === '+' || op === '#'
          ? spec.explode
            ? '.*'
            : '[^,?#]*'
          : op === '/'
            ? spec.explode
              ? '[^?#]*'
              : '[^/?#,]*'
            : op === '?' || op === '&'
              ? '[^&#]*'
              : op === ';'
                ? '[^;/?#]*'
                : op === '.'
                  ? spec.explode
                    ? '[^/?#]*'
                    : '[^./?#,]*'
                  : spec.explode
                    ? '[^/?#]*'
                    : '[^/?#,]*';
      const named = op === '?' || op === '&' || op === ';';
      const group = named ? `(${escapeRegex(spec.name)}(?:=${body})?)` : `(${body})`;
      // Query and path-parameter members are optional; the rest must be present.
      source += named || index > 0 ? `(?:${escapeRegex(lead)}${group})?` : `${escapeRegex(lead)}${group}`;
      captures.push({ spec, operator: op });
    });
  }
  source += '$';
  return { regex: new RegExp(source), captures };
}

function stripNamed(raw: string, name: string, op: Expression['operator']): string {
  if (op !== '?' && op !== '&' && op !== ';') return raw;
  const rest = raw.slice(name.length);
  return rest.startsWith('=') ? rest.slice(1) : rest;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
