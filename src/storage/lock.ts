// One server per data directory. The lock file holds the owner's pid; a stale lock (dead pid) is taken over.
import { openSync, writeSync, closeSync, readFileSync, unlinkSync, fsyncSync } from "node:fs";
import { join } from "node:path";

export class DataDirLocked extends Error {}

export function lockDataDir(dataDir: string): () => void {
  const file = join(dataDir, "inboxd.lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, "wx");
      writeSync(fd, `${process.pid}\n`);
      fsyncSync(fd);
      closeSync(fd);
      return () => {
        try {
          if (readFileSync(file, "utf8").trim() === String(process.pid)) unlinkSync(file);
        } catch {}
      };
    } catch (e: any) {
      if (e.code !== "EEXIST") throw e;
      const pid = Number(readFileSync(file, "utf8").trim());
      if (pid && pid !== process.pid && isAlive(pid)) {
        throw new DataDirLocked(`data directory ${dataDir} is in use by process ${pid} (${file})`);
      }
      unlinkSync(file); // stale: its owner died without cleaning up
    }
  }
  throw new DataDirLocked(`could not lock data directory ${dataDir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e: any) {
    return e.code === "EPERM";
  }
}
