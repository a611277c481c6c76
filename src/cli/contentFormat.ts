/**
 * How the client commands print content blocks (tool results, prompt messages) and resource
 * contents: text as is, binary data as a one-line summary with its size.
 *
 * @module
 */

/** The byte size of base64 `data`. */
function base64Bytes(data: unknown): number {
  const text = String(data);
  return Math.floor((text.length * 3) / 4) - (text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0);
}

/** The lines of one resource contents item: its text, or `[blob mime, N bytes]`. */
export function formatResourceContents(contents: Readonly<Record<string, unknown>>): string[] {
  if (typeof contents['text'] === 'string') return [contents['text']];
  return [`[blob ${String(contents['mimeType'] ?? 'application/octet-stream')}, ${base64Bytes(contents['blob'])} bytes]`];
}

/** The lines of content blocks (`text`, `image`, `audio`, `resource`, `resource_link`). */
export function formatContentBlocks(items: readonly unknown[]): string[] {
  const lines: string[] = [];
  for (const item of items) {
    const c = item as Record<string, unknown>;
    switch (c['type']) {
      case 'text':
        lines.push(String(c['text']));
        break;
      case 'image':
      case 'audio':
        lines.push(`[${String(c['type'])} ${String(c['mimeType'])}, ${base64Bytes(c['data'])} bytes]`);
        break;
      case 'resource': {
        const r = (c['resource'] ?? {}) as Record<string, unknown>;
        lines.push(`[resource ${String(r['uri'])}]`);
        if (typeof r['text'] === 'string') lines.push(r['text']);
        break;
      }
      case 'resource_link':
        lines.push(`[link ${String(c['uri'])}${typeof c['name'] === 'string' ? ` ${c['name']}` : ''}]`);
        break;
      default:
        lines.push(JSON.stringify(c));
    }
  }
  return lines;
}
