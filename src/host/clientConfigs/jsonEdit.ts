/**
 * The JSON / JSONC machinery shared by every JSON client format: parsing with positions in
 * errors, finding the server section, and swapping it for the gateway entry while leaving
 * every other byte (comments, order, indentation) as it was. Unwrap splices the section's
 * original text back verbatim, so a file nobody else touched comes back byte for byte.
 *
 * @module
 */
import { applyEdits, findNodeAtLocation, getNodeValue, modify, parseTree, printParseErrorCode, type JSONPath, type Node, type ParseError } from 'jsonc-parser';
import { ClientConfigError, GATEWAY_ENTRY_ID, isRecord, positionOf, type ClientFormat, type ClientServers, type EditResult, type GatewayLaunch, type ImportedServer, type ParseContext } from './types.js';

/** Parses JSONC (comments and trailing commas allowed); the root must be an object. */
export function parseJsonc(text: string, file: string): Node {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  const first = errors[0];
  if (first !== undefined) throw new ClientConfigError(file, `invalid JSON: ${printParseErrorCode(first.error)}`, positionOf(text, first.offset));
  if (root === undefined || root.type !== 'object') throw new ClientConfigError(file, 'expected a JSON object at the top level', positionOf(text, root?.offset ?? 0));
  return root;
}

/** The value of `path` in `root`, or undefined. */
export function valueAt(root: Node, path: JSONPath): unknown {
  const node = findNodeAtLocation(root, path);
  return node === undefined ? undefined : (getNodeValue(node) as unknown);
}

interface Layout {
  readonly unit: string;
  readonly eol: string;
}

/** The indentation unit and line ending the file already uses (default two spaces, LF). */
function layoutOf(text: string): Layout {
  const indented = /\n([ \t]+)\S/.exec(text);
  return { unit: indented?.[1] ?? '  ', eol: text.includes('\r\n') ? '\r\n' : '\n' };
}

/** The leading whitespace of the line holding `offset`. */
function lineIndent(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start))?.[0] ?? '';
}

/** `value` as JSON laid out like the file, continuation lines indented by `base`. */
function render(value: unknown, layout: Layout, base: string): string {
  return JSON.stringify(value, null, layout.unit).split('\n').join(layout.eol + base);
}

function formatting(layout: Layout): { insertSpaces: boolean; tabSize: number; eol: string } {
  return { insertSpaces: !layout.unit.includes('\t'), tabSize: layout.unit.includes('\t') ? 1 : layout.unit.length, eol: layout.eol };
}

/** Sets `path` to `value` (undefined removes it), replacing an existing value's text in place. */
export function setSection(text: string, root: Node, path: JSONPath, value: unknown): string {
  const layout = layoutOf(text);
  const node = findNodeAtLocation(root, path);
  if (node !== undefined && value !== undefined) {
    const base = lineIndent(text, node.parent?.offset ?? node.offset);
    return text.slice(0, node.offset) + render(value, layout, base) + text.slice(node.offset + node.length);
  }
  return applyEdits(text, modify(text, path, value, { formattingOptions: formatting(layout) }));
}

/** Compares two JSON values structurally. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
  }
  return a === b;
}

/** How one JSON client format differs from the others. */
export interface JsonFormatSpec {
  /** Where the server map lives (e.g. `['mcpServers']`, `['projects', dir, 'mcpServers']`). */
  readonly sectionPath: JSONPath;
  /** Reads the server map. */
  readonly read: (section: unknown, root: unknown, context: ParseContext | undefined) => { servers: ImportedServer[]; skipped: string[] };
  /** The `switchboard` entry in this client's spelling; `section` is the map being replaced. */
  readonly gatewayEntry: (launch: GatewayLaunch, section: unknown) => unknown;
}

function isWrapped(section: unknown): boolean {
  return isRecord(section) && Object.hasOwn(section, GATEWAY_ENTRY_ID);
}

/** Re-parses an edit and checks the section came out as intended (never write a broken file). */
function checked(text: string, file: string, path: JSONPath, expect: (section: unknown) => boolean): EditResult {
  const section = valueAt(parseJsonc(text, file), path);
  if (!expect(section)) throw new ClientConfigError(file, `could not edit ${path.join('.')} safely; the file was left unchanged`);
  return { text, changed: true };
}

/** A {@link ClientFormat} for a JSON / JSONC file. */
export function jsonFormat(spec: JsonFormatSpec): ClientFormat {
  const path = spec.sectionPath;
  return {
    parse(text: string, file: string, context?: ParseContext): ClientServers {
      const root = parseJsonc(text, file);
      const section = valueAt(root, path);
      if (section !== undefined && !isRecord(section)) throw new ClientConfigError(file, `${path.join('.')} is not an object`, positionOf(text, findNodeAtLocation(root, path)?.offset ?? 0));
      return { ...spec.read(section, getNodeValue(root), context), wrapped: isWrapped(section) };
    },
    wrap(text: string, file: string, launch: GatewayLaunch): EditResult {
      const root = parseJsonc(text, file);
      const section = valueAt(root, path);
      if (isWrapped(section)) return { text, changed: false };
      const wanted = { [GATEWAY_ENTRY_ID]: spec.gatewayEntry(launch, section) };
      return checked(setSection(text, root, path, wanted), file, path, (s) => sameJson(s, wanted));
    },
    unwrap(text: string, file: string, backup: string): EditResult {
      const root = parseJsonc(text, file);
      const section = valueAt(root, path);
      if (!isWrapped(section) || !isRecord(section)) return { text, changed: false };
      const backupRoot = parseJsonc(backup, `${file} (backup)`);
      const originalNode = findNodeAtLocation(backupRoot, path);
      const original = originalNode === undefined ? undefined : (getNodeValue(originalNode) as unknown);
      let out: string;
      let expected: unknown;
      if (Object.keys(section).length === 1) {
        const node = findNodeAtLocation(root, path) as Node;
        out = originalNode === undefined ? setSection(text, root, path, undefined) : text.slice(0, node.offset) + backup.slice(originalNode.offset, originalNode.offset + originalNode.length) + text.slice(node.offset + node.length);
        expected = original;
      } else {
        // Servers added next to the gateway since wrap stay; the originals come back beside them.
        out = setSection(text, root, [...path, GATEWAY_ENTRY_ID], undefined);
        const merged: Record<string, unknown> = Object.fromEntries(Object.entries(section).filter(([k]) => k !== GATEWAY_ENTRY_ID));
        for (const [id, entry] of Object.entries(isRecord(original) ? original : {})) {
          if (Object.hasOwn(merged, id)) continue;
          out = setSection(out, parseJsonc(out, file), [...path, id], entry);
          merged[id] = entry;
        }
        expected = merged;
      }
      return checked(out, file, path, (s) => sameJson(s, expected));
    },
  };
}
