import { spawn } from "node:child_process";
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "ava";
import { isLocalServer, processesCpuUs } from "./local-server-cpu.js";

test("the CPU of processes found by name counts what they use (a busy shell under a name of its own)", async (t) => {
  if ((await processesCpuUs("no-such-process")) === undefined) return t.pass("no /proc here");
  // A process name no other process has: a copy of the shell (its name is its file's name).
  const name = `evcpu${process.pid % 100_000}`;
  const dir = await mkdtemp(join(tmpdir(), "evident-cpu-"));
  const shell = join(dir, name);
  await copyFile("/bin/sh", shell);
  t.is(await processesCpuUs(name), 0, "nothing of that name before it starts");
  const busy = spawn(shell, ["-c", "while :; do :; done"], { stdio: "ignore" });
  try {
    await new Promise((resolve) => busy.once("spawn", resolve));
    let first = 0;
    for (let i = 0; i < 50 && first === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      first = (await processesCpuUs(name)) ?? 0;
    }
    t.true(first > 0, "a spinning process has used CPU");
    await new Promise((resolve) => setTimeout(resolve, 200));
    t.true(((await processesCpuUs(name)) ?? 0) >= first, "and the count only grows");
  } finally {
    busy.kill("SIGKILL");
    await new Promise((resolve) => busy.once("exit", resolve));
    await rm(dir, { recursive: true, force: true });
  }
  t.is(await processesCpuUs(name), 0, "gone with the process");
});

test("a store server is local only when its URL names this machine", (t) => {
  t.true(isLocalServer("postgres://postgres:postgres@127.0.0.1:5432/postgres"));
  t.true(isLocalServer("postgres://localhost/db"));
  t.true(isLocalServer("postgres://[::1]:5432/db"));
  t.false(isLocalServer("postgres://db.internal:5432/db"));
  t.false(isLocalServer("not a url"));
});
