import { readFile } from "node:fs/promises";
import test from "ava";
import { parseStartScript, START_SETTINGS } from "../bench/processes/start-script.js";

// The process settings the README's "Memory" documents: npm start, the image and the benchmarks
// (which read the start script) must start the gateway the same way.

test("npm start caps the young generation and the heap's growth, shares two malloc arenas and fixes malloc's mmap threshold", (t) => {
  t.deepEqual(START_SETTINGS.nodeFlags, ["--max-semi-space-size=32", "--heap-growing-percent=50"]);
  t.deepEqual(START_SETTINGS.envDefaults, {
    MALLOC_ARENA_MAX: "2",
    MALLOC_MMAP_THRESHOLD_: "131072",
  });
});

test("the data plane image starts node with the start script's flags and environment", async (t) => {
  const dockerfile = await readFile(new URL("../Dockerfile.dataplane", import.meta.url), "utf8");
  const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
  t.deepEqual(JSON.parse(cmd ?? "[]"), [
    "node",
    ...START_SETTINGS.nodeFlags,
    "dist/dataplane/main.js",
  ]);
  for (const [name, value] of Object.entries(START_SETTINGS.envDefaults))
    t.regex(dockerfile, new RegExp(`^\\s+${name}=${value} \\\\$`, "m"));
});

test("the start script parser reads environment defaults and node flags", (t) => {
  t.deepEqual(
    parseStartScript("A=${A:-1} B=${B:-x} node --one --two=2 --import tsx dataplane/main.ts"),
    { nodeFlags: ["--one", "--two=2"], envDefaults: { A: "1", B: "x" } },
  );
  t.throws(() => parseStartScript("tsx dataplane/main.ts"), { message: /does not run node/ });
});
