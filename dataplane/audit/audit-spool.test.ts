import { constants as fsConstants } from "node:fs";
import { mkdtemp, open, readdir, readFile, readlink, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import test from "ava";
import type { PendingAuditRecord } from "../store/audit-repository.js";
import { encodeLines, parseLines } from "./audit-spool-lines.js";
import { SEGMENT_BYTES } from "./audit-spool-segments.js";
import { AuditSpool, SpoolFullError, type SpoolCursor } from "./audit-spool.js";

const rec = (id: string) =>
  ({
    fields: { id, customer_id: "c", occurred_at: "t" },
    content: null,
  }) as unknown as PendingAuditRecord;

async function readAll(spool: AuditSpool, from: SpoolCursor) {
  const ids: string[] = [];
  let cursor = from;
  for (;;) {
    const read = await spool.read(cursor, 64);
    if (read.bytes === 0) return { ids, cursor: read.next };
    for (const line of read.lines) ids.push("record" in line ? line.record.fields.id : "?");
    await spool.release(read.next, read.bytes);
    cursor = read.next;
  }
}

test("records appended are read back in order; what was not released is read again after a restart, a torn tail skipped", async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), "evident-spool-test-"));
  try {
    const spool = await AuditSpool.open(dir, 1024 * 1024);
    t.true(await spool.spareReady(), "the first segment is preallocated");
    await spool.append([rec("a"), rec("b")]);
    await spool.append([rec("c")]);
    const first = await readAll(spool, { segment: 0, offset: 0 });
    t.deepEqual(first.ids, ["a", "b", "c"]);
    t.true(spool.isEmpty());
    await spool.append([rec("d")]);
    await spool.close();
    // A crash in the middle of an append: part of a line where the records end (before the
    // zeros of the preallocated segment).
    const segment = path.join(dir, "00000001.jsonl");
    t.is((await stat(segment)).size, SEGMENT_BYTES, "the segment was preallocated");
    const end = (await readFile(segment)).indexOf(0);
    const file = await open(segment, "r+");
    await file.write('{"fields":{"id":"torn', end);
    await file.close();

    const again = await AuditSpool.open(dir, 1024 * 1024);
    const second = await readAll(again, { segment: 0, offset: 0 });
    t.deepEqual(second.ids, ["a", "b", "c", "d"], "the log holds until segments are released");
    await again.append([rec("e")]);
    t.deepEqual((await readAll(again, second.cursor)).ids, ["e"]);
    t.deepEqual(
      (await readdir(dir)).filter((n) => n.endsWith(".jsonl")),
      ["00000002.jsonl", "00000003.jsonl"],
      "released segments are deleted (00000003 is the next one, preallocated)",
    );
    await again.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("a directory owned by another live process is refused", async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), "evident-spool-test-"));
  try {
    await writeFile(path.join(dir, "owner.pid"), String(process.ppid));
    await t.throwsAsync(AuditSpool.open(dir, 1024), { message: /in use by process/ });
    await writeFile(path.join(dir, "owner.pid"), "999999999");
    await (await AuditSpool.open(dir, 1024)).close();
    t.pass("a lock left by a process that is gone is taken over");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("a full log refuses appends until the ingester releases some", async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), "evident-spool-test-"));
  try {
    const spool = await AuditSpool.open(dir, 200);
    await spool.append([rec("a"), rec("b")]);
    await t.throwsAsync(spool.append([rec("c"), rec("d"), rec("e")]), {
      instanceOf: SpoolFullError,
    });
    t.false(spool.hasRoom());
    await readAll(spool, { segment: 0, offset: 0 });
    t.true(spool.hasRoom());
    await spool.append([rec("c")]);
    await spool.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/** The open flags of this process's descriptor on `file` (Linux: /proc/self/fdinfo). */
async function openFlags(file: string): Promise<number | undefined> {
  for (const fd of await readdir("/proc/self/fd")) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => "");
    if (target !== file) continue;
    const info = await readFile(`/proc/self/fdinfo/${fd}`, "utf8");
    const flags = /^flags:\s+([0-7]+)$/m.exec(info)?.[1];
    if (flags !== undefined) return Number.parseInt(flags, 8);
  }
  return undefined;
}

(process.platform === "linux" ? test : test.skip)(
  "the log's segment is written with O_DSYNC: an append returns only once its data is on disk, with no separate fdatasync",
  async (t) => {
    const dir = await mkdtemp(path.join(tmpdir(), "evident-spool-test-"));
    try {
      const spool = await AuditSpool.open(dir, 1024 * 1024);
      await spool.append([rec("a")]);
      const flags = await openFlags(path.join(dir, "00000001.jsonl"));
      t.not(flags, undefined, "the segment is open for appends");
      t.is((flags ?? 0) & fsConstants.O_DSYNC, fsConstants.O_DSYNC);
      await spool.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
);

test("log lines are each record's JSON and a newline, in UTF-8, read back as the same records", (t) => {
  const records = [rec("é 😀"), rec(`x${String.fromCharCode(0)}\ud800`), rec("plain")];
  const data = encodeLines(records);
  t.deepEqual(data, Buffer.from(records.map((r) => `${JSON.stringify(r)}\n`).join(""), "utf8"));
  t.deepEqual(
    parseLines(data.toString("utf8")),
    records.map((r) => ({ record: JSON.parse(JSON.stringify(r)) as PendingAuditRecord })),
  );
  t.is(encodeLines([]).length, 0);
});
