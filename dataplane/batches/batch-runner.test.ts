import test from "ava";
import { pino } from "pino";
import { storeBackends } from "../../test/support/databases.js";
import { systemClock } from "../core/clock.js";
import { memberCaller } from "../../test/support/member-caller.js";
import { BatchRepository } from "../store/batch-repository.js";
import type { Database } from "../store/database.js";
import { FileRepository } from "../store/file-repository.js";
import { migrate } from "../store/migrate.js";
import { BatchRunner, type LineRun } from "./batch-runner.js";
import type { BatchLine, BatchRecord } from "./batch-types.js";

const caller = memberCaller("cus_1", { keyId: "key_1", tier: "pro" });

function lines(n: number): BatchLine[] {
  return Array.from({ length: n }, (_, i) => ({
    lineNo: i + 1,
    customId: `line-${i + 1}`,
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: `n${i + 1}` }] }),
  }));
}

async function newBatch(repo: BatchRepository, id: string): Promise<BatchRecord> {
  const now = Date.now();
  return repo.create({
    id,
    customerId: "cus_1",
    keyId: "key_1",
    endpoint: "/v1/chat/completions",
    inputFileId: "file_1",
    completionWindow: "24h",
    metadata: null,
    createdAt: new Date(now),
    expiresAt: new Date(now + 3_600_000),
  });
}

function runner(
  db: Database,
  owner: string,
  input: BatchLine[],
  runLine: (line: BatchLine) => Promise<LineRun>,
) {
  return new BatchRunner({
    batches: new BatchRepository(db),
    files: new FileRepository(db),
    loadCaller: async () => caller,
    readInput: async () => ({ lines: input, errors: [] }),
    runLine: (_b, _c, line) => runLine(line),
    clock: systemClock,
    logger: pino({ level: "silent" }),
    owner,
    pollMs: 20,
    leaseMs: 2_000,
    concurrency: 3,
  });
}

const answer = (line: BatchLine): LineRun => ({
  kind: "answered",
  status: 200,
  body: { echo: line.customId },
  requestId: `req_${line.lineNo}`,
});

for (const backend of storeBackends()) {
  test.serial(
    `${backend.name}: a dead worker's batch is taken over; its in-flight line is reported, never sent again`,
    async (t) => {
      const { db, drop } = await backend.open();
      try {
        await migrate(db);
        const repo = new BatchRepository(db);
        const batch = await newBatch(repo, "batch_dead");
        const input = lines(6);
        // The dead worker validated the batch, claimed line 1 and line 2, then vanished.
        const now = Date.now();
        t.truthy(await repo.claim("dead", new Date(now), new Date(now + 50)));
        t.true(await repo.startLines(batch.id, "dead", input, new Date(now)));
        t.is((await repo.claimLines(batch.id, "dead", new Date(now), 2)).length, 2);
        await new Promise((r) => setTimeout(r, 80)); // its lease lapses
        const sent: string[] = [];
        const live = runner(db, "live", input, async (line) => {
          sent.push(line.customId);
          return answer(line);
        });
        t.true(await live.runOnce());
        t.deepEqual(sent.sort(), ["line-3", "line-4", "line-5", "line-6"]);
        const done = await repo.get(batch.id, "cus_1");
        t.is(done?.status, "completed");
        t.is(done?.completed, 4);
        t.is(done?.failed, 2);
        const errors = new FileRepository(db);
        const chunks: Buffer[] = [];
        for await (const c of errors.content(done?.errorFileId ?? "")) chunks.push(c);
        const errorLines = Buffer.concat(chunks)
          .toString()
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l) as { custom_id: string; error: { code: string } });
        t.deepEqual(
          errorLines.map((l) => [l.custom_id, l.error.code]),
          [
            ["line-1", "batch_line_interrupted"],
            ["line-2", "batch_line_interrupted"],
          ],
        );
      } finally {
        await drop();
      }
    },
  );

  test.serial(
    `${backend.name}: two workers on the same store run every line exactly once`,
    async (t) => {
      const { db, drop } = await backend.open();
      try {
        await migrate(db);
        const repo = new BatchRepository(db);
        const ids = ["batch_a", "batch_b", "batch_c"];
        for (const id of ids) await newBatch(repo, id);
        const input = lines(15);
        const sent: string[] = [];
        const slow = async (line: BatchLine) => {
          sent.push(line.customId);
          await new Promise((r) => setTimeout(r, 5));
          return answer(line);
        };
        const a = runner(db, "a", input, slow);
        const b = runner(db, "b", input, slow);
        a.start();
        b.start();
        const until = Date.now() + 60_000;
        while (Date.now() < until) {
          const states = await Promise.all(ids.map((id) => repo.get(id, "cus_1")));
          if (states.every((s) => s?.status === "completed")) break;
          await new Promise((r) => setTimeout(r, 25));
        }
        await Promise.all([a.stop(), b.stop()]);
        for (const id of ids) {
          const s = await repo.get(id, "cus_1");
          t.is(s?.status, "completed", id);
          t.is(s?.completed, 15);
        }
        t.is(sent.length, 45, "15 lines x 3 batches, no line twice");
      } finally {
        await drop();
      }
    },
  );

  test.serial(`${backend.name}: a line refused by limits waits and runs later, once`, async (t) => {
    const { db, drop } = await backend.open();
    try {
      await migrate(db);
      const repo = new BatchRepository(db);
      const batch = await newBatch(repo, "batch_pause");
      const input = lines(3);
      const attempts = new Map<string, number>();
      const w = runner(db, "w", input, async (line) => {
        const n = (attempts.get(line.customId) ?? 0) + 1;
        attempts.set(line.customId, n);
        if (line.customId === "line-2" && n === 1) return { kind: "paused", retryAfterMs: 30 };
        return answer(line);
      });
      t.true(await w.runOnce());
      const s = await repo.get(batch.id, "cus_1");
      t.is(s?.status, "completed");
      t.is(s?.completed, 3);
      t.is(s?.failed, 0);
      t.is(attempts.get("line-2"), 2);
      t.is(attempts.get("line-1"), 1);
    } finally {
      await drop();
    }
  });
}
