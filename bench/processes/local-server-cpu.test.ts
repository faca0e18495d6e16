import { readFileSync } from "node:fs";
import test from "ava";
import { isLocalServer, processesCpuUs } from "./local-server-cpu.js";

test("the CPU of processes found by name counts what they used (here: this process, by its own name)", async (t) => {
  const name = readFileSync("/proc/self/comm", "utf8").trim();
  const before = await processesCpuUs(name);
  if (before === undefined) return t.pass("no /proc on this machine");
  const start = process.cpuUsage();
  let spin = 0;
  for (;;) {
    const used = process.cpuUsage(start);
    if (used.user + used.system >= 50_000) break;
    spin += Math.sqrt(spin + 1);
  }
  const after = (await processesCpuUs(name)) ?? 0;
  t.true(spin > 0);
  t.true(after - before >= 40_000, `counted ${after - before} µs for 50 ms of CPU`);
  t.is(await processesCpuUs("no-such-process-name"), 0);
});

test("a store server is local only when its URL names this machine", (t) => {
  t.true(isLocalServer("postgres://postgres:postgres@127.0.0.1:5432/postgres"));
  t.true(isLocalServer("postgres://localhost/db"));
  t.true(isLocalServer("postgres://[::1]:5432/db"));
  t.false(isLocalServer("postgres://db.internal:5432/db"));
  t.false(isLocalServer("not a url"));
});
