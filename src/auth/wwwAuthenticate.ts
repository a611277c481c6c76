/**
 * `WWW-Authenticate` parsing and formatting.
 *
 * Grammar: {@link https://www.rfc-editor.org/rfc/rfc9110#section-11.6.1 | RFC 9110 section 11.6.1}
 * (`#challenge`, `auth-scheme [ 1*SP ( token68 / #auth-param ) ]`, quoted strings with
 * backslash escapes, several challenges in one field value). Bearer parameters:
 * {@link https://datatracker.ietf.org/doc/html/rfc6750#section-3 | RFC 6750 section 3} plus
 * `resource_metadata` ({@link https://datatracker.ietf.org/doc/html/rfc9728#section-5.1 | RFC 9728 section 5.1}).
 *
 * @module
 */

/** One parsed challenge. */
export interface AuthChallenge {
  /** The auth scheme, lowercased (`bearer`, `dpop`, `basic`). */
  readonly scheme: string;
  /** The auth-params, names lowercased, values unquoted. */
  readonly params: Readonly<Record<string, string>>;
  /** The token68 form, when the challenge used it instead of parameters. */
  readonly token68?: string;
}

const TCHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*/;
/** Whitespace, including obsolete line folding (the spec's own examples fold challenges). */
const WS = new Set([' ', '\t', '\r', '\n']);

/**
 * Parses a `WWW-Authenticate` field value (several values may be joined with `,`). Lenient
 * about whitespace; a challenge with a repeated parameter name is dropped (RFC 9110: each
 * parameter name MUST only occur once per challenge), so an attacker-appended duplicate
 * `resource_metadata` cannot be smuggled past the first.
 */
export function parseWwwAuthenticate(header: string | null | undefined): AuthChallenge[] {
  if (header === null || header === undefined) return [];
  const s = header;
  let i = 0;
  const out: AuthChallenge[] = [];
  const skipWs = (): void => {
    while (i < s.length && WS.has(s[i] as string)) i++;
  };
  const skipWsAndCommas = (): void => {
    while (i < s.length && (WS.has(s[i] as string) || s[i] === ',')) i++;
  };
  const readToken = (): string => {
    const start = i;
    while (i < s.length && TCHAR.test(s[i] as string)) i++;
    return s.slice(start, i);
  };
  const readQuoted = (): string | undefined => {
    // at '"'
    i++;
    let v = '';
    while (i < s.length) {
      const c = s[i] as string;
      if (c === '\\') {
        if (i + 1 >= s.length) return undefined;
        v += s[i + 1];
        i += 2;
        continue;
      }
      if (c === '"') {
        i++;
        return v;
      }
      v += c;
      i++;
    }
    return undefined; // unterminated
  };
  /** Looks ahead: is there `token BWS "=" BWS (token / quoted-string)` at i (not token68)? */
  const atParam = (): boolean => {
    const save = i;
    const name = readToken();
    skipWs();
    const ok = name !== '' && s[i] === '=' && (() => {
      i++;
      skipWs();
      return i < s.length && (s[i] === '"' || TCHAR.test(s[i] as string));
    })();
    i = save;
    return ok;
  };

  skipWsAndCommas();
  while (i < s.length) {
    const scheme = readToken();
    if (scheme === '') {
      // garbage: skip to the next comma
      while (i < s.length && s[i] !== ',') i++;
      skipWsAndCommas();
      continue;
    }
    const params: Record<string, string> = {};
    let duplicate = false;
    let token68: string | undefined;
    skipWs();
    if (i < s.length && s[i] !== ',' && !atParam()) {
      const m = TOKEN68.exec(s.slice(i));
      if (m !== null) {
        token68 = m[0];
        i += m[0].length;
      }
    } else {
      while (i < s.length && atParam()) {
        const name = readToken().toLowerCase();
        skipWs();
        i++; // '='
        skipWs();
        let value: string | undefined;
        if (s[i] === '"') value = readQuoted();
        else value = readToken();
        if (value === undefined) break;
        if (Object.hasOwn(params, name)) duplicate = true;
        else params[name] = value;
        skipWs();
        if (s[i] !== ',') break;
        // After a comma: another param of this challenge, or a new challenge.
        const save = i;
        skipWsAndCommas();
        if (!atParam()) {
          i = save;
          break;
        }
      }
    }
    if (!duplicate) out.push(token68 === undefined ? { scheme: scheme.toLowerCase(), params } : { scheme: scheme.toLowerCase(), params, token68 });
    // move to the next challenge
    while (i < s.length && s[i] !== ',') i++;
    skipWsAndCommas();
  }
  return out;
}

/** Quotes an auth-param value; refuses control characters (header injection). */
export function quoteParam(value: string): string {
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x08\x0A-\x1F\x7F]/.test(value)) throw new TypeError('auth-param value contains control characters');
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/**
 * Formats one challenge: `Scheme name="value", ...`. Parameters whose value is `undefined` are
 * omitted; values are always quoted.
 */
export function formatChallenge(scheme: string, params: Readonly<Record<string, string | undefined>>): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined) continue;
    if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) throw new TypeError(`invalid auth-param name ${name}`);
    parts.push(`${name}=${quoteParam(value)}`);
  }
  return parts.length === 0 ? scheme : `${scheme} ${parts.join(', ')}`;
}

/** The first challenge with the given scheme (case-insensitive). */
export function findChallenge(challenges: readonly AuthChallenge[], scheme: string): AuthChallenge | undefined {
  const want = scheme.toLowerCase();
  return challenges.find((c) => c.scheme === want);
}
