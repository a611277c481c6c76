/**
 * URLs in a tool call's arguments, read one way for every check (`argumentChecks.ts`): the
 * metadata/link-local refusal and a server's optional egress allow-list
 * (`switchboard.servers.<id>.egressAllow`).
 *
 * **Where URLs are found.** Every string at any depth, object keys included:
 * - a string that is a URL of a special scheme (`http`, `https`, `ws`, `wss`, `ftp`) in any
 *   spelling the WHATWG parser accepts (`http:/host`, `http:\\host`, `http:host`, tabs and
 *   newlines inside), or of any scheme with an authority (`gopher://`, `dict://`);
 * - a URL inside text (`see http://… for details`), newlines inside it removed too;
 * - a value of a well-known URL or host parameter (`url`, `uri`, `href`, `endpoint`, `host`,
 *   `domain`, `webhook`, `callback`, `redirect`, `target`, `proxy`, names ending in `Url`,
 *   `Uri`, `Host`…) read as a URL even without a scheme (`evil.example/x`, `//evil.example`).
 * - a string that is `name.tld/…`, `name.tld:port/…` or an IPv4 address (with a port or path).
 * For the metadata check only, any other string that looks like `host[:port][/…]` (but not a
 * plain word) is read as a URL too (no allow-list refuses a city name or `README.md` for
 * looking like a host, and a search for the word `metadata` is not refused).
 *
 * **One normaliser.** Every host goes through the WHATWG URL parser, then {@link normaliseHost}:
 * case, trailing dots, IDNA (fullwidth digits, ideographic full stops), percent-encoding,
 * userinfo (`http://good@169.254.169.254`), IPv4 in decimal, hex, octal and short forms
 * (`2852039166`, `0xA9FEA9FE`, `0251.0376.0251.0376`, `169.254.43518`), IPv6 compressed,
 * IPv4-mapped, -compatible and NAT64 IPv6 read as their IPv4. The allow-list's entries are
 * read with the same normaliser.
 *
 * What it cannot see: a name that resolves to a metadata address (DNS is not resolved here;
 * names that spell a link-local IPv4 in them, `169-254-169-254.sslip.io`, are refused), a
 * redirect the server follows, or a URL the server builds from pieces.
 *
 * @module
 */

/** A normalised host: a name (lowercase, no trailing dot) or an IP address's bytes (4 or 16). */
export type NormalHost = { readonly kind: 'name'; readonly name: string } | { readonly kind: 'ip'; readonly bytes: Uint8Array; readonly text: string };

/** A string of the arguments and where it is. */
export interface ArgumentString {
  /** Its JSON path (`$.a.b[0]`, or `$.a (key)` for a key). */
  readonly at: string;
  readonly text: string;
  /** The property it is the value of (array items inherit it), if any. */
  readonly key: string | undefined;
}

/** A URL found in an argument: its normalised host, and whether it was only read as one because it looks like a host. */
export interface FoundUrl {
  readonly at: string;
  readonly host: NormalHost;
  /** Read as `http://<text>` only because it looks like `host[/…]` (no scheme, not a URL parameter). */
  readonly guessed: boolean;
}

/**
 * The host of a WHATWG-parsed URL (`URL.hostname`) normalised (see the module comment), or
 * `undefined` when it has none.
 */
export function normaliseHost(hostname: string): NormalHost | undefined {
  let host = hostname.toLowerCase();
  if (host === '') return undefined;
  if (host.startsWith('[')) {
    const bytes = ipv6Bytes(host.slice(1, -1));
    if (bytes === undefined) return { kind: 'name', name: host };
    const v4 = embeddedIpv4(bytes);
    return v4 === undefined ? { kind: 'ip', bytes, text: host } : { kind: 'ip', bytes: v4, text: v4.join('.') };
  }
  host = host.replace(/\.+$/, '');
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (v4 !== null) {
    const bytes = Uint8Array.from(v4.slice(1, 5), Number);
    if (bytes.join('.') === host) return { kind: 'ip', bytes, text: host };
  }
  return { kind: 'name', name: host };
}

// The WHATWG parser's special schemes, whose hosts it already normalises as http's.
const SPECIAL_SCHEMES = new Set(['http:', 'https:', 'ws:', 'wss:', 'ftp:']);

/** Reads `text` as a URL (or, with `asHost`, as `http://<text>`) and returns its normalised host. */
export function hostOf(text: string, asHost = false): NormalHost | undefined {
  try {
    const url = new URL(asHost ? `http://${text.replace(/^\/\//, '')}` : text);
    const host = url.hostname;
    if (host === '') return undefined;
    // Any other scheme's host read as an http host: the IPv4 forms of `gopher://2852039166/` are normalised too.
    return normaliseHost(SPECIAL_SCHEMES.has(url.protocol) ? host : new URL(`http://${host}/`).hostname);
  } catch {
    return undefined;
  }
}

/** The IPv4 inside an IPv4-mapped (`::ffff:0:0/96`), -compatible (`::/96`) or NAT64 (`64:ff9b::/96`) IPv6 address. */
function embeddedIpv4(bytes: Uint8Array): Uint8Array | undefined {
  const head = bytes.subarray(0, 12);
  const zero = (from: number, to: number): boolean => head.subarray(from, to).every((b) => b === 0);
  const mapped = zero(0, 10) && head[10] === 0xff && head[11] === 0xff;
  const compatible = zero(0, 12) && (bytes[12] !== 0 || bytes[13] !== 0);
  const nat64 = head[0] === 0 && head[1] === 0x64 && head[2] === 0xff && head[3] === 0x9b && zero(4, 12);
  return mapped || compatible || nat64 ? bytes.slice(12) : undefined;
}

/** The 16 bytes of an IPv6 address as the WHATWG parser serialises it (hex groups, one `::`), else `undefined`. */
function ipv6Bytes(text: string): Uint8Array | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (part: string | undefined): number[] | undefined => {
    if (part === undefined || part === '') return [];
    const out: number[] = [];
    for (const g of part.split(':')) {
      if (!/^[0-9a-f]{1,4}$/.test(g)) return undefined;
      out.push(Number.parseInt(g, 16));
    }
    return out;
  };
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  if (head === undefined || tail === undefined) return undefined;
  const fill = 8 - head.length - tail.length;
  if (fill < 0 || (halves.length === 1 && fill !== 0)) return undefined;
  const all = [...head, ...Array<number>(fill).fill(0), ...tail];
  const bytes = new Uint8Array(16);
  all.forEach((g, i) => {
    bytes[i * 2] = g >> 8;
    bytes[i * 2 + 1] = g & 0xff;
  });
  return bytes;
}

/** An entry of an egress allow-list: a host, `*.domain` (its subdomains), or an address block. */
export type EgressEntry =
  | { readonly kind: 'host'; readonly name: string; readonly spelled: string }
  | { readonly kind: 'subdomains'; readonly name: string; readonly spelled: string }
  | { readonly kind: 'cidr'; readonly bytes: Uint8Array; readonly bits: number; readonly spelled: string };

/** Reads one allow-list entry (`api.github.com`, `*.example.com`, `10.0.0.0/8`, `2001:db8::/32`, `192.0.2.7`); a string saying why not when it is not one. */
export function parseEgressEntry(spelled: string): EgressEntry | string {
  const cidr = /^(.+)\/(\d{1,3})$/.exec(spelled);
  if (cidr !== null) {
    const address = cidr[1] as string;
    const host = hostOf(address.includes(':') ? `[${address.replace(/^\[|\]$/g, '')}]` : address, true);
    const bits = Number(cidr[2]);
    if (host?.kind !== 'ip') return `"${spelled}" is not an address block (expected an IPv4 or IPv6 address, a slash and a prefix length)`;
    if (bits > host.bytes.length * 8) return `"${spelled}": a prefix of ${bits} bits is longer than the address`;
    return { kind: 'cidr', bytes: host.bytes, bits, spelled };
  }
  const wildcard = spelled.startsWith('*.');
  const host = hostOf(wildcard ? spelled.slice(2) : spelled.includes(':') && !spelled.startsWith('[') ? `[${spelled}]` : spelled, true);
  if (host === undefined || /[/?#@]/.test(spelled) || (spelled.includes('*') && !wildcard) || (wildcard && spelled.slice(2).includes('*'))) {
    return `"${spelled}" is not a host, *.domain or address block`;
  }
  if (host.kind === 'ip') return wildcard ? `"${spelled}": * only goes before a domain name` : { kind: 'cidr', bytes: host.bytes, bits: host.bytes.length * 8, spelled };
  return { kind: wildcard ? 'subdomains' : 'host', name: host.name, spelled };
}

/** Whether `host` is allowed by one of `entries`. */
export function egressAllowed(host: NormalHost, entries: readonly EgressEntry[]): boolean {
  return entries.some((e) => {
    if (host.kind === 'name') return e.kind === 'host' ? host.name === e.name : e.kind === 'subdomains' && host.name.endsWith(`.${e.name}`);
    return e.kind === 'cidr' && inBlock(host.bytes, e.bytes, e.bits);
  });
}

function inBlock(address: Uint8Array, block: Uint8Array, bits: number): boolean {
  if (address.length !== block.length) return false;
  for (let i = 0; i < bits; i += 8) {
    const take = Math.min(8, bits - i);
    const mask = (0xff << (8 - take)) & 0xff;
    if (((address[i / 8] as number) & mask) !== ((block[i / 8] as number) & mask)) return false;
  }
  return true;
}

const METADATA_NAMES = new Set(['metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal', 'metadata.azure.com', 'metadata.platformequinix.com']);
const METADATA_BLOCKS: readonly EgressEntry[] = ['169.254.0.0/16', 'fe80::/10', 'fd00:ec2::254/128', '100.100.100.200/32', '192.0.0.192/32'].map((s) => parseEgressEntry(s) as EgressEntry);
// A name that spells a link-local IPv4 (169-254-169-254.sslip.io, 169.254.169.254.nip.io) resolves to it.
const SPELLED_LINK_LOCAL = /(?:^|[.-])169[.-]254[.-]\d{1,3}[.-]\d{1,3}(?:[.-]|$)|(?:^|[.-])a9fe[0-9a-f]{4}(?:[.-]|$)/;

/**
 * Whether a normalised host is link-local or a cloud metadata endpoint: `169.254.0.0/16`,
 * `fe80::/10`, AWS `fd00:ec2::254`, Alibaba `100.100.100.200`, Oracle `192.0.0.192`, and the
 * metadata names (`metadata.google.internal`, `metadata`, `instance-data`…).
 */
export function isMetadata(host: NormalHost): boolean {
  if (host.kind === 'ip') return egressAllowed(host, METADATA_BLOCKS);
  return METADATA_NAMES.has(host.name) || SPELLED_LINK_LOCAL.test(host.name);
}

/** Whether a URL host (`URL.hostname`, or a host as written) is link-local or a cloud metadata endpoint. */
export function isMetadataHost(hostname: string): boolean {
  const host = hostOf(hostname.startsWith('[') || !hostname.includes(':') ? hostname : `[${hostname}]`, true);
  return host !== undefined && isMetadata(host);
}

// A special-scheme URL in any spelling the WHATWG parser takes (slashes, backslashes or none), or any scheme with `//`.
const URL_IN_TEXT = /(?:\b(?:https?|wss?|ftp):|\b[A-Za-z][\w+.-]*:\/\/)[^\s"'<>`]+/gi;
const SPECIAL_URL = /^(?:https?|wss?|ftp):/i;
const ANY_URL = /^[A-Za-z][\w+.-]*:\/\//;
const BARE_HOST = /^\[?[\w.:%-]+\]?(?::\d+)?(?:[/?#]|$)/;
const PLAIN_WORD = /^[A-Za-z_-]+$/;
const HOST_WITH_PATH = /^(?:(?:[a-z0-9-]+\.)+[a-z][a-z0-9-]*[a-z0-9](?::\d+)?[/?#]|\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?(?:[/?#]|$))/i;
const URL_KEY = /^(?:url|uri|href|link|endpoint|host|hostname|domain|origin|base|baseurl|webhook|callback|redirect|proxy|target|destination|site|website|server)s?$|(?:url|uri|host|endpoint|webhook)s?$/;

const NONE: readonly FoundUrl[] = Object.freeze([]);

/** Whether a property name is a well-known URL or host parameter (`url`, `imageUrl`, `target_host`…). */
export function isUrlKey(key: string | undefined): boolean {
  return key !== undefined && URL_KEY.test(key.toLowerCase().replace(/[_-]/g, ''));
}

/** Every URL in one argument string (see the module comment), with its host normalised. */
export function urlsIn(s: ArgumentString): readonly FoundUrl[] {
  // A plain word (`hello`, a key such as `message`): no scheme (no `:`), and read as a host only as a URL parameter's value.
  if (PLAIN_WORD.test(s.text) && !isUrlKey(s.key)) return NONE;
  const text = s.text.trim();
  if (text === '') return [];
  const out: FoundUrl[] = [];
  const add = (spelling: string, asHost: boolean, guessed: boolean): void => {
    const host = hostOf(spelling, asHost);
    if (host !== undefined) out.push({ at: s.at, host, guessed });
  };
  const schemed = SPECIAL_URL.test(text) || ANY_URL.test(text);
  if (schemed) add(text, false, false);
  // Cheap test first: most strings hold no `:` at all.
  if (text.includes(':')) {
    const flat = /[\t\n\r]/.test(text) ? [text, text.replace(/[\t\n\r]+/g, '')] : [text];
    const found = new Set<string>();
    for (const form of flat) for (const m of form.match(URL_IN_TEXT) ?? []) if (m !== text) found.add(m);
    for (const m of found) add(m, false, false);
  }
  if (!schemed) {
    if (isUrlKey(s.key)) add(text, true, false);
    // `name.tld/…` or `1.2.3.4:port` reads as a URL for the allow-list too; `README.md`, `src/a.ts`, `Oslo` do not.
    else if (BARE_HOST.test(text)) {
      // A plain word (`hello`, `metadata` as a search term, a key such as `message`) is not read as a host
      // outside a URL parameter: no URL parse for it, and no false refusal.
      if (!PLAIN_WORD.test(text)) add(text, true, !HOST_WITH_PATH.test(text));
    }
  }
  return out;
}
