// `inboxd version` / `inboxd --version`: the package version, the commit it was built from (when the
// build saw a git checkout) and the Bun runtime.
import pkg from "../../package.json";
import { buildCommit } from "./build-commit" with { type: "macro" };

export function versionLine(): string {
  const commit = buildCommit();
  return `inboxd ${pkg.version} (commit ${commit ?? "unknown"}; bun ${Bun.version}; ${process.platform}/${process.arch})`;
}
