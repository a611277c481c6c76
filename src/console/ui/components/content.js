// @ts-check
/**
 * Renders MCP results: a tool result's content items (text, image, audio, embedded resource,
 * resource link) and structured content, a resource read's contents, a prompt's messages.
 * Text is text; images and audio are `data:` URLs built from the base64 the server sent
 * (never a remote URL, never markup).
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-result
 * @module
 */
import { html } from '../lib/html.js';
import { Badge } from './badge.js';
import { JsonView } from './json.js';
import { Reveal } from './text.js';

/** @typedef {{ type?: string, text?: string, data?: string, mimeType?: string, uri?: string, name?: string, title?: string, description?: string, blob?: string, resource?: ResourceContents }} ContentItem */
/** @typedef {{ uri: string, mimeType?: string, text?: string, blob?: string }} ResourceContents */

/** A MIME type safe to put in a data: URL of the given family (`image/png`, …), else undefined. */
function mime(/** @type {unknown} */ value, /** @type {string} */ family) {
  return typeof value === 'string' && new RegExp(`^${family}/[a-z0-9.+-]+$`, 'i').test(value) ? value : undefined;
}

/** Base64 text (the only alphabet allowed into a data: URL). */
function base64(/** @type {unknown} */ value) {
  return typeof value === 'string' && /^[A-Za-z0-9+/=\s]*$/.test(value) ? value.replace(/\s+/g, '') : undefined;
}

/** One resource's contents (embedded or read). */
export function ResourceView(/** @type {{ contents: ResourceContents }} */ { contents: c }) {
  const image = mime(c.mimeType, 'image');
  const data = base64(c.blob);
  return html`<div class="resource">
    <p><strong>Resource</strong> <code><${Reveal} text=${c.uri} /></code>${c.mimeType !== undefined ? html` <span class="hint"><${Reveal} text=${c.mimeType} /></span>` : null}</p>
    ${c.text !== undefined ? html`<pre class="json"><${Reveal} text=${c.text} /></pre>` : null}
    ${c.blob !== undefined
      ? image !== undefined && data !== undefined
        ? html`<img src=${`data:${image};base64,${data}`} alt=${`Resource ${c.uri}`} />`
        : html`<p class="hint">Binary, ${Math.floor(((c.blob ?? '').length * 3) / 4)} bytes.</p>`
      : null}
  </div>`;
}

/** One content item of a tool result or prompt message. */
export function ContentItemView(/** @type {{ item: ContentItem, index: number }} */ { item, index }) {
  const n = index + 1;
  switch (item.type) {
    case 'text':
      return html`<div class="result-part" data-testid="result-text"><h3>Text ${n}</h3><pre class="json"><${Reveal} text=${item.text} /></pre></div>`;
    case 'image': {
      const m = mime(item.mimeType, 'image');
      const d = base64(item.data);
      return html`<div class="result-part"><h3>Image ${n}</h3>${m !== undefined && d !== undefined ? html`<img src=${`data:${m};base64,${d}`} alt=${`Image ${n} of the result (${m})`} data-testid="result-image" />` : html`<p>Image with an unsupported type.</p>`}</div>`;
    }
    case 'audio': {
      const m = mime(item.mimeType, 'audio');
      const d = base64(item.data);
      return html`<div class="result-part"><h3>Audio ${n}</h3>${m !== undefined && d !== undefined ? html`<audio controls src=${`data:${m};base64,${d}`} aria-label=${`Audio ${n} of the result (${m})`} data-testid="result-audio"></audio>` : html`<p>Audio with an unsupported type.</p>`}</div>`;
    }
    case 'resource':
      return html`<div class="result-part"><h3>Embedded resource ${n}</h3>${item.resource !== undefined ? html`<${ResourceView} contents=${item.resource} />` : null}</div>`;
    case 'resource_link':
      return html`<div class="result-part"><h3>Resource link ${n}</h3><p><code><${Reveal} text=${item.uri} /></code> <${Reveal} text=${item.name} />${item.description !== undefined ? html` — <${Reveal} text=${item.description} />` : null}</p></div>`;
    default:
      return html`<div class="result-part"><h3>Content ${n}</h3><${JsonView} value=${item} label=${`Content ${n}`} /></div>`;
  }
}

/**
 * A tool result: its content items, its structured content, and whether it is an error.
 * @param {{ result: { content?: ContentItem[], structuredContent?: unknown, isError?: boolean } }} props
 */
export function ToolResult({ result }) {
  return html`<section class="result card" aria-label="Tool result" data-testid="tool-result">
    <p>Result ${result.isError === true ? html`<${Badge} value="error" />` : html`<${Badge} value="ok" />`}</p>
    ${(result.content ?? []).map((item, index) => html`<${ContentItemView} item=${item} index=${index} />`)}
    ${result.structuredContent !== undefined ? html`<div class="result-part"><h3>Structured content</h3><${JsonView} value=${result.structuredContent} label="Structured content" /></div>` : null}
  </section>`;
}
