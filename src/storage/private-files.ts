// The data directory holds the mail of every tenant, the sealed secrets and the key that opens
// them (secret.key), the TLS private key, and the SQLite file with its -wal and -shm. On a shared
// host none of it is for other local users: the directory is 0700 and what we create in it 0600.
// A umask of 077 covers every file we create from here on (SQLite's -wal/-shm, blobs, TLS files)
// without each writer remembering a mode; a data directory from an older release (0755, files
// 0644) is tightened at start, with one log line saying so.
import { chmodSync, existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/**
 * Sets the process umask to 077 and tightens `dataDir` and its top-level entries (files 0600,
 * folders 0700; what lies deeper, the blobs, is unreachable through a 0700 folder). Returns what
 * it changed, for the log.
 */
export function makeDataDirPrivate(dataDir: string): string[] {
  process.umask(0o077);
  const changed: string[] = [];
  const tighten = (path: string, mode: number) => {
    const was = statSync(path).mode & 0o777;
    if ((was & ~mode) === 0) return;
    chmodSync(path, was & mode);
    changed.push(`${path} ${octal(was)} -> ${octal(was & mode)}`);
  };
  tighten(dataDir, 0o700);
  for (const name of readdirSync(dataDir)) {
    const path = join(dataDir, name);
    if (!existsSync(path)) continue;
    const st = statSync(path);
    if (st.isDirectory()) tighten(path, 0o700);
    else if (st.isFile()) tighten(path, 0o600);
  }
  return changed;
}

const octal = (m: number) => `0${m.toString(8).padStart(3, "0")}`;
