// A server a test process started, bound to that process's lifetime however it ends (returns, throws, is
// killed with SIGKILL, its run times out): neither afterAll nor an exit hook runs on a signal's death, and
// `bun test` never emits "exit" at all. Used for inboxd (harness.ts) and PostgreSQL (postgres.ts).

export interface Watch {
  /** How the server is asked to stop: SIGKILL to it and its children follows after 10 s. */
  signal: "TERM" | "QUIT";
  /** A directory to remove once the server is gone (retried: a child outliving its parent may still write there). */
  dir: string | null;
  /**
   * Remove `dir` only when this process is gone too. A directory the test process may start the server
   * on again (restart()) is kept while it lives; without this, a server that stopped first also has its
   * directory removed.
   */
  keepDirWhileTestLives: boolean;
}

/**
 * A detached watchdog polls this process and the server each second. Once this process is gone and the
 * server is not, it stops the server; then it removes `dir`. It ends by itself when the server stops
 * first (a stop() or a restart()).
 */
export function stopWhenOrphaned(serverPid: number, watch: Watch): void {
  const alive = (pid: number) => `kill -0 ${pid} 2>/dev/null`;
  const dir = watch.dir;
  const script = [
    `while ${alive(process.pid)} && ${alive(serverPid)}; do sleep 1; done`,
    watch.keepDirWhileTestLives ? `${alive(process.pid)} && exit 0` : "",
    `if ${alive(serverPid)}; then`,
    `  kill -${watch.signal} ${serverPid}`,
    `  i=0; while ${alive(serverPid)} && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done`,
    `  pkill -KILL -P ${serverPid} 2>/dev/null; kill -KILL ${serverPid} 2>/dev/null`,
    "fi",
    dir ? `i=0; while [ -e '${dir}' ] && [ $i -lt 60 ]; do rm -rf '${dir}' 2>/dev/null || sleep 0.5; i=$((i+1)); done` : "",
  ].join("\n");
  // detached: its own session, so a signal to the test's process group does not reach it.
  Bun.spawn(["sh", "-c", script], { stdio: ["ignore", "ignore", "ignore"], detached: true }).unref();
}
