#!/usr/bin/env node
// The `evident` command: registers tsx so the TypeScript sources run as they are, then dispatches.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../dataplane/cli/main.ts");
process.exitCode = await main(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
});
