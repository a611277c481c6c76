/**
 * Byte helpers shared by the framings and body readers.
 *
 * @module
 */

/**
 * Joins `parts` (whose lengths add up to `total`) into one array. A single part is returned
 * as is, not copied.
 */
export function concatBytes(parts: readonly Uint8Array[], total: number): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}
