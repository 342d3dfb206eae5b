// The test command (`npm test`): runs `bun test` and ends with the line CI reads: "N passed, M failed".
export {};
const args = process.argv.slice(2);
const proc = Bun.spawn([process.execPath, "test", "--timeout", "60000", ...args], {
  stdout: "pipe",
  stderr: "pipe",
  env: { ...process.env, FORCE_COLOR: "0" },
});
let all = "";
const dec = new TextDecoder();
const pump = async (s: ReadableStream<Uint8Array>, w: NodeJS.WriteStream) => {
  for await (const c of s) {
    const t = dec.decode(c, { stream: true });
    all += t;
    w.write(t);
  }
};
await Promise.all([pump(proc.stdout as any, process.stdout), pump(proc.stderr as any, process.stderr)]);
const code = await proc.exited;
const pass = Number(/^\s*(\d+) pass$/m.exec(all)?.[1] ?? 0);
const fail = Number(/^\s*(\d+) fail$/m.exec(all)?.[1] ?? 0);
const skip = Number(/^\s*(\d+) skip$/m.exec(all)?.[1] ?? 0);
const errors = Number(/^\s*(\d+) errors?$/m.exec(all)?.[1] ?? 0);
const failed = fail + errors + (code !== 0 && fail === 0 && errors === 0 ? 1 : 0);
console.log(`${pass} passed, ${failed} failed${skip ? `, ${skip} skipped` : ""}`);
process.exit(failed > 0 || code !== 0 ? 1 : 0);
