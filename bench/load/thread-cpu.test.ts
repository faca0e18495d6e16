import { closeSync, openSync, readSync } from "node:fs";
import { Worker } from "node:worker_threads";
import test from "ava";
import {
  eventLoopSchedule,
  perRequestByGroup,
  threadCpuByName,
  threadGroup,
} from "./thread-cpu.js";

test("thread names map to the groups a full run reports", (t) => {
  t.is(threadGroup("MainThread"), "main");
  t.is(threadGroup("WorkerThread"), "workers");
  t.is(threadGroup("V8Worker"), "V8 helpers");
  t.is(threadGroup("libuv-worker"), "thread pool");
  t.is(threadGroup("SignalInspector"), "other");
});

test("per request by group: the CPU between two readings, each thread in its group, over the requests", (t) => {
  const before = new Map([
    ["MainThread", 1_000],
    ["V8Worker", 100],
  ]);
  const after = new Map([
    ["MainThread", 3_000],
    ["V8Worker", 300],
    ["WorkerThread", 500],
    ["DelayedTaskSche", 10],
  ]);
  t.deepEqual(perRequestByGroup(before, after, 10), {
    main: 200,
    workers: 50,
    "V8 helpers": 20,
    "thread pool": 0,
    other: 1,
  });
});

test.serial(
  "a worker thread that spins is counted under workers, not the main thread (reads this process's /proc)",
  async (t) => {
    const first = await threadCpuByName(process.pid);
    if (first === undefined) return t.pass("no /proc here");
    t.true((first.get("MainThread") ?? 0) > 0, "the main thread has used CPU");
    const worker = new Worker(
      // Spins, says so, then stays alive (a thread that has exited is no longer in /proc).
      "const end = Date.now() + 300; while (Date.now() < end); require('node:worker_threads').parentPort.postMessage('done'); setInterval(() => {}, 1000);",
      { eval: true },
    );
    try {
      await new Promise((resolve) => worker.once("message", resolve));
      const after = await threadCpuByName(process.pid);
      const spent = perRequestByGroup(first, after ?? new Map(), 1);
      t.true(spent.workers >= 100_000, `the worker spun for 300 ms: ${spent.workers} µs`);
      t.true(spent.main < spent.workers, "the main thread only waited meanwhile");
    } finally {
      await worker.terminate();
    }
    t.is(await threadCpuByName(2 ** 22 + 7), undefined, "no such process: no reading");
  },
);

test.serial(
  "the event loop's time on a core grows while it spins, and its run-queue wait is read too (reads this process's /proc)",
  async (t) => {
    const before = await eventLoopSchedule(process.pid);
    if (before === undefined) return t.pass("no /proc here");
    const end = Date.now() + 200;
    while (Date.now() < end); // spin on the event loop
    const after = await eventLoopSchedule(process.pid);
    if (after === undefined) return t.fail("the reading went away");
    t.true(after.onCoreUs - before.onCoreUs >= 100_000, "200 ms of spinning is on a core");
    t.true(after.waitingUs >= before.waitingUs, "the run-queue wait only grows");
    t.is(await eventLoopSchedule(2 ** 22 + 12345), undefined, "no such process: undefined");
  },
);

test.serial(
  "the event loop's time on a core splits into its own code and the kernel's work for it (reads this process's /proc)",
  async (t) => {
    const first = await eventLoopSchedule(process.pid);
    if (first === undefined) return t.pass("no /proc here");
    // Each part runs until this process has used 250 ms of that kind of CPU (not for a wall-clock
    // time: on a busy machine the thread gets less of it).
    const spend = (kind: "user" | "system", work: () => void): void => {
      const start = process.cpuUsage()[kind];
      while (process.cpuUsage()[kind] - start < 250_000) work();
    };
    spend("user", () => undefined); // own code only
    const spun = await eventLoopSchedule(process.pid);
    if (spun === undefined) return t.fail("the reading went away");
    t.true(
      spun.userUs - first.userUs >= 150_000,
      `spinning is user time: ${spun.userUs - first.userUs}`,
    );
    // Reading /dev/zero: the kernel fills the buffer, the loop itself does next to nothing.
    const zero = openSync("/dev/zero", "r");
    const buffer = Buffer.alloc(4 << 20);
    try {
      spend("system", () => readSync(zero, buffer, 0, buffer.length, null));
    } finally {
      closeSync(zero);
    }
    const read = await eventLoopSchedule(process.pid);
    if (read === undefined) return t.fail("the reading went away");
    t.true(
      read.kernelUs - spun.kernelUs >= 150_000,
      `reading is kernel time: ${read.kernelUs - spun.kernelUs}`,
    );
    t.true(
      read.kernelUs - spun.kernelUs > read.userUs - spun.userUs,
      `reading /dev/zero is mostly the kernel's: ${read.kernelUs - spun.kernelUs} against ${read.userUs - spun.userUs}`,
    );
  },
);
