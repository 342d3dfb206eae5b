// One reference token of a JSON pointer (RFC 6901): "~" and "/" in a key are written "~0" and "~1".
// Error paths (scenario definitions, validation errors) and interpolation walks name keys this way.

export function escapePointer(k: string): string {
  return k.replace(/~/g, "~0").replace(/\//g, "~1");
}

export function unescapePointer(token: string): string {
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
}
