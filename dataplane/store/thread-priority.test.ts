import { readdir, readFile } from "node:fs/promises";
import test from "ava";
import { openPglite } from "./pglite-database.js";
import { currentThreadId } from "./thread-priority.js";

/** The nice value of each thread of this process, by thread id (field 19 of its stat). */
async function niceByThread(): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  for (const tid of await readdir("/proc/self/task")) {
    const stat = await readFile(`/proc/self/task/${tid}/stat`, "utf8").catch(() => "");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields.length > 16) out.set(Number(tid), Number(fields[16]));
  }
  return out;
}

test("the main thread's kernel id is the process id", (t) => {
  if (process.platform !== "linux") return t.pass("Linux only");
  t.is(currentThreadId(), process.pid);
});

test("an embedded store opened with a niceness runs its thread at it; the serving thread keeps its own", async (t) => {
  if (process.platform !== "linux") return t.pass("Linux only");
  const before = await niceByThread();
  const db = await openPglite(undefined, { vector: false, niceness: 7 });
  try {
    const after = await niceByThread();
    const niced = [...after].filter(([tid, nice]) => !before.has(tid) && nice === 7);
    t.is(niced.length, 1, "one new thread, the store's, at 7");
    t.is(after.get(process.pid), before.get(process.pid), "the main thread unchanged");
    t.deepEqual(await db.query<{ one: number }>("SELECT 1 AS one"), [{ one: 1 }]);
  } finally {
    await db.close();
  }
});
