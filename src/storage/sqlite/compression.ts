// zstd for what the database keeps twice its useful size: raw messages in blobs_inline and parsed
// text and HTML bodies (migration 0024). Measured on bench/corpus.ts (14 KB ESP mail, 2 cores): level 1
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

/** A body (text or HTML) as stored: [null, frame] when compressing pays, else [the text as it is, null]. */
export function packBody(body: string | null): [string | null, Uint8Array | null] {
  if (body === null || body.length < MIN_BYTES) return [body, null];
  const z = compressIfWorth(enc.encode(body));
  return z ? [null, z] : [body, null];
}

/** A messages row as read (SELECT *) with its bodies restored; text_z and html_z are not part of the record. */
export function unpackBodies<T>(row: T): T {
  if (row === null || row === undefined) return row;
  const r = row as unknown as {
    text_body: string | null;
    html_body: string | null;
    text_z?: Uint8Array | null;
    html_z?: Uint8Array | null;
  };
  if (r.text_z) r.text_body = dec.decode(decompress(r.text_z));
  if (r.html_z) r.html_body = dec.decode(decompress(r.html_z));
  delete r.text_z;
  delete r.html_z;
  return row;
}

/** A body column pair (plain, frame) read back as text. */
export function bodyOf(plain: string | null, z: Uint8Array | null): string | null {
  return z ? dec.decode(decompress(z)) : plain;
}
