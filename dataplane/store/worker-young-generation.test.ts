import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import test from "ava";
import { semiSpaceFlag } from "./worker-young-generation.js";

const CHILD = fileURLToPath(
  new URL("../../test/support/young-generation-child.ts", import.meta.url),
);

test("a worker started with its own young generation keeps it under --max-semi-space-size, and later threads get the flag again", async (t) => {
  const { stdout } = await promisify(execFile)(process.execPath, [
    "--max-semi-space-size=2",
    "--import",
    "tsx",
    CHILD,
  ]);
  const { own, plain } = JSON.parse(stdout) as { own: number; plain: number };
  // 24 MB of young generation allows 8 MiB semi-spaces (V8 reports 16 MiB of new space); the
  // flag's 2 MiB semi-spaces, 4 MiB (5 seen: V8 rounds the space to whole pages; 7 once, in a CI
  // run on a loaded machine). Left alone V8 sizes them from the machine's memory (64 MiB here),
  // and the first worker's own is 16, so the bounds keep a margin both ways.
  t.true(own > 8 && own <= 20, `own young generation: ${own} MiB of new space`);
  t.true(plain <= 8, `plain worker after it: ${plain} MiB of new space`);
});

test("semiSpaceFlag reads the last --max-semi-space-size among Node's arguments", (t) => {
  t.is(semiSpaceFlag(["--import", "tsx"]), undefined);
  t.is(semiSpaceFlag(["--max-semi-space-size=32", "--heap-growing-percent=50"]), "32");
  t.is(semiSpaceFlag(["--max_semi_space_size", "16", "--max-semi-space-size=8"]), "8");
});
