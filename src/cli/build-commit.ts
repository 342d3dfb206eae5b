// Run as a Bun macro (`import … with { type: "macro" }`): at `bun build --compile` time for the
// binary, at load time when running from a checkout. Returns the commit, or null without git.
export function buildCommit(): string | null {
  try {
    const r = Bun.spawnSync(["git", "rev-parse", "--short=12", "HEAD"], { cwd: import.meta.dir, stdout: "pipe", stderr: "ignore" });
    if (r.exitCode !== 0) return null;
    const commit = r.stdout.toString().trim();
    if (!/^[0-9a-f]{7,40}$/.test(commit)) return null;
    const dirty = Bun.spawnSync(["git", "status", "--porcelain", "--untracked-files=no"], {
      cwd: import.meta.dir,
      stdout: "pipe",
      stderr: "ignore",
    });
    return dirty.exitCode === 0 && dirty.stdout.toString().trim() !== "" ? `${commit}-dirty` : commit;
  } catch {
    return null;
  }
}
