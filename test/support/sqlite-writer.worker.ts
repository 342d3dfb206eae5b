// A competing writer on a SQLite file, on a thread of its own: takes the write lock for `holdMs`,
// lets go for `gapMs`, again and again until told "stop" (then reports how many times it held
// the lock). Its transaction changes nothing (`SET x = x`): it stands for a backup tool, the
// sqlite3 shell or a second indexer touching the file while inboxd runs.
import { openDataFile } from "./sqlite-file";

declare const self: Worker;

let stop = false;
self.onmessage = async (e: MessageEvent<"stop" | { file: string; sql: string; holdMs: number; gapMs: number }>) => {
  if (e.data === "stop") {
    stop = true;
    return;
  }
  const { file, sql, holdMs, gapMs } = e.data;
  const db = openDataFile(file);
  db.exec("PRAGMA busy_timeout = 5000");
  let held = 0;
  self.postMessage({ started: true });
  while (!stop) {
    db.exec("BEGIN IMMEDIATE");
    db.exec(sql);
    Bun.sleepSync(holdMs);
    db.exec("COMMIT");
    held++;
    await Bun.sleep(gapMs);
  }
  db.close();
  self.postMessage({ held });
};
