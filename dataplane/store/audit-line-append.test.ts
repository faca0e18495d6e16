import test from "ava";
import { pendingRecord } from "../../test/support/audit-seed.js";
import { storeBackends } from "../../test/support/databases.js";
import { encodeLines } from "../audit/audit-spool-lines.js";
import { refusesRecord } from "../audit/audit-ingester.js";
import { verifyChain } from "../audit/verify-chain.js";
import { AuditRepository } from "./audit-repository.js";
import { migrate } from "./migrate.js";
import { dbErrorFrom, serializeDbError } from "./serialized-db-error.js";

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute));

/** Log lines as the local audit log holds them, with `extra` text lines after the records. */
function logLines(records: ReturnType<typeof pendingRecord>[], ...extra: string[]): Uint8Array {
  const text =
    Buffer.from(encodeLines(records)).toString("utf8") + extra.map((l) => `${l}\n`).join("");
  return new Uint8Array(Buffer.from(text, "utf8"));
}

for (const backend of storeBackends()) {
  test(`${backend.name}: log lines chained and committed on the store's own thread: records in order, the chain verifying, lines that are not records handed back, a replay with dedupe adding nothing`, async (t) => {
    const store = await backend.open();
    try {
      await migrate(store.db);
      const append = store.db.appendAuditLines?.bind(store.db);
      if (!append) return t.fail("this store offers no thread for the audit ingestion");
      const first = [pendingRecord("c_l", at(0)), pendingRecord("c_l", at(1))];
      const unreadable = await append(logLines(first, "not json", '{"fields":{}}'), false);
      t.deepEqual(unreadable, ["not json", '{"fields":{}}']);
      const second = [pendingRecord("c_l", at(2)), pendingRecord("c_m", at(3))];
      t.deepEqual(await append(logLines([...first, ...second]), true), [], "a replay");
      const repo = new AuditRepository(store.db);
      const stored = [];
      for await (const r of repo.chain("c_l")) stored.push(r);
      t.deepEqual(
        stored.map((r) => [r.fields?.id, r.seq]),
        [...first, second[0]].map((r, i) => [r?.fields.id, i + 1]),
      );
      t.true((await verifyChain(repo.chain("c_l"))).ok);
      // The request thread's own appends (AUDIT_DURABILITY=store) move the head meanwhile.
      await repo.append(store.db, [pendingRecord("c_l", at(4))]);
      await append(logLines([pendingRecord("c_l", at(5))]), false);
      const report = await verifyChain(repo.chain("c_l"));
      t.true(report.ok, JSON.stringify(report.first_broken));
      t.is(report.checked, 5);
    } finally {
      await store.drop();
    }
  });

  test(`${backend.name}: a record the store refuses fails the batch with its SQLSTATE, so the ingester can tell it from a lost store`, async (t) => {
    const store = await backend.open();
    try {
      await migrate(store.db);
      const append = store.db.appendAuditLines?.bind(store.db);
      if (!append) return t.fail("this store offers no thread for the audit ingestion");
      const bad = pendingRecord("c_r", at(0));
      const refused = { ...bad, fields: { ...bad.fields, occurred_at: "not a time" } };
      const err = await t.throwsAsync(
        append(logLines([pendingRecord("c_r", at(1)), refused]), false),
      );
      t.regex(String((err as { code?: unknown }).code), /^22/);
      t.true(refusesRecord(err));
      t.is(
        await store.db.query("SELECT 1 FROM audit_records").then((r) => r.length),
        0,
        "none of the batch",
      );
    } finally {
      await store.drop();
    }
  });
}

test("an error crossing a thread keeps its SQLSTATE fields and the class that says a value was refused", (t) => {
  const pgError = Object.assign(new Error("invalid input syntax"), { code: "22007", table: "x" });
  const back = dbErrorFrom(serializeDbError(pgError));
  t.is(back.message, "invalid input syntax");
  t.like(back, { code: "22007", table: "x" });
  t.true(dbErrorFrom(serializeDbError(new RangeError("too deep"))) instanceof RangeError);
  t.false(refusesRecord(dbErrorFrom(serializeDbError(new Error("ECONNREFUSED")))));
  t.is(dbErrorFrom(serializeDbError("a string")).message, "a string");
});
