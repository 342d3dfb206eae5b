export function nowIso(): string {
  return new Date().toISOString();
}

export function isoIn(seconds: number, from = Date.now()): string {
  return new Date(from + seconds * 1000).toISOString();
}
