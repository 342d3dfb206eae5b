// Preloaded into every `bun test` run (bunfig.toml): an afterAll outside any file runs once, after the
// last file, where the process's "exit" event (which bun test never emits) would have been.
import { afterAll } from "bun:test";
import { releaseLeftovers } from "./harness";

afterAll(releaseLeftovers);
