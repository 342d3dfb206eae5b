// zstd for what the database keeps twice its useful size: raw messages in blobs_inline and parsed
// HTML bodies (migration 0024). Measured on bench/corpus.ts (14 KB ESP mail, 2 cores): level 1
// keeps 27 % of the bytes in ~34 µs per message and reads back in ~19 µs; level 3 keeps 26.6 %
// for ~40 µs, level 6+ 25.9 % for 100+ µs, deflate 1 keeps 33 %. Level 1: the commit runs it.
// Bytes are stored compressed only when that saves at least an eighth (images, archives and
// already-compressed attachments stay as they are, read without a decompression).

const LEVEL = 1;
/** Below this, a zstd frame's own overhead eats most of the gain (and pages hold small rows well). */
const MIN_BYTES = 256;
/** Larger blobs are sampled first: a JPEG of 500 KB is not compressed for nothing. */
const SAMPLE_BYTES = 16 * 1024;

const pays = (compressed: number, raw: number) => compressed <= raw - (raw >> 3);

/** A zstd frame of `bytes`, or null when storing them as they are is as good. */
export function compressIfWorth(bytes: Uint8Array): Uint8Array | null {
  if (bytes.byteLength < MIN_BYTES) return null;
  if (bytes.byteLength > 4 * SAMPLE_BYTES) {
    const sample = bytes.subarray(0, SAMPLE_BYTES);
    if (!pays(Bun.zstdCompressSync(sample, { level: LEVEL }).byteLength, SAMPLE_BYTES)) return null;
  }
  const z = Bun.zstdCompressSync(bytes, { level: LEVEL });
  return pays(z.byteLength, bytes.byteLength) ? z : null;
}

export function decompress(z: Uint8Array): Uint8Array {
  return Bun.zstdDecompressSync(z);
}

const enc = new TextEncoder();
const dec = new TextDecoder();

/** The HTML body as stored: {html_body: null, html_z} when compressing pays, else the text as it is. */
export function packHtml(html: string | null): { html_body: string | null; html_z: Uint8Array | null } {
  if (html === null || html.length < MIN_BYTES) return { html_body: html, html_z: null };
  const z = compressIfWorth(enc.encode(html));
  return z ? { html_body: null, html_z: z } : { html_body: html, html_z: null };
}

/** A messages row as read (SELECT *) with its HTML body restored; html_z is not part of the record. */
export function unpackHtml<T>(row: T): T {
  if (row === null || row === undefined) return row;
  const r = row as unknown as { html_body: string | null; html_z?: Uint8Array | null };
  if (r.html_z) r.html_body = dec.decode(decompress(r.html_z));
  delete r.html_z;
  return row;
}

export function htmlOf(html: string | null, z: Uint8Array | null): string | null {
  return z ? dec.decode(decompress(z)) : html;
}
