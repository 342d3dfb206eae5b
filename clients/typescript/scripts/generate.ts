// Regenerates src/schema.d.ts: `npm run generate -w clients/typescript` (from the repository root).
// Without an argument it starts inboxd from this checkout (port 0) and reads its /openapi.json;
// with a URL or a file it reads that document.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateTypes } from "./generate-types";

const arg = process.argv[2];
let doc: unknown;
if (arg && /^https?:/.test(arg)) doc = await (await fetch(arg)).json();
else if (arg && existsSync(arg)) doc = JSON.parse(readFileSync(arg, "utf8"));
else {
  const { startInboxd } = await import("../../../test/support/harness");
  const inst = await startInboxd();
  try {
    doc = await (await fetch(`${inst.url}/openapi.json`)).json();
  } finally {
    await inst.stop();
    inst.cleanup();
  }
}
const out = join(import.meta.dir, "../src/schema.d.ts");
writeFileSync(out, await generateTypes(doc));
console.log(`wrote ${out}`);
