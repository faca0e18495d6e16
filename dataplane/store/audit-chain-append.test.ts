import test from "ava";
import { pendingRecord } from "../../test/support/audit-seed.js";
import { storeBackends } from "../../test/support/databases.js";
import { verifyChain } from "../audit/verify-chain.js";
import { AuditRepository } from "./audit-repository.js";
import type { Database } from "./database.js";
import { migrate } from "./migrate.js";

const records = (customerId: string, n: number) =>
  Array.from({ length: n }, (_, i) =>
    pendingRecord(customerId, new Date(Date.UTC(2026, 0, 1, 0, i))),
  );

/** Statements sent, by their first words (what a batch costs the store). */
function counting(db: Database): { db: Database; statements: string[] } {
  const statements: string[] = [];
  const note = (text: string) => statements.push(text.trim().split(/\s+/).slice(0, 2).join(" "));
  const wrapped: Database = {
    ...db,
    query: (text, params) => (note(text), db.query(text, params)),
    transaction: (fn) =>
      db.transaction((tx) => {
        note("BEGIN");
        return fn({ ...tx, query: (text, params) => (note(text), tx.query(text, params)) });
      }),
  };
  return { db: wrapped, statements };
}

for (const backend of storeBackends()) {
  test(`${backend.name}: two writers on one store (replicas) extend one chain; a head moved by the other is noticed, and a batch of a known head is one statement`, async (t) => {
    const store = await backend.open();
    try {
      await migrate(store.db);
      const { db, statements } = counting(store.db);
      const first = new AuditRepository(db);
      const second = new AuditRepository(db);
      await first.append(db, records("c_a", 3)); // new chain: locked
      t.deepEqual(statements, ["BEGIN", "INSERT INTO", "WITH head"]);
      statements.length = 0;
      await first.append(db, records("c_a", 4)); // head known and unchanged: one statement
      t.deepEqual(statements, ["WITH head"]);
      await second.append(db, records("c_a", 2)); // head not known here: locked
      statements.length = 0;
      await first.append(db, records("c_a", 5)); // head moved by `second`: checked, then locked
      t.deepEqual(statements, ["WITH head", "BEGIN", "INSERT INTO", "WITH head"]);
      await Promise.all([
        first.append(db, records("c_a", 6)),
        second.append(db, records("c_a", 6)),
        first.append(db, [...records("c_b", 2), ...records("c_a", 1)]),
      ]);
      const repo = new AuditRepository(store.db);
      const report = await verifyChain(repo.chain("c_a"));
      t.true(report.ok, JSON.stringify(report.first_broken));
      t.is(report.checked, 3 + 4 + 2 + 5 + 6 + 6 + 1);
      t.true((await verifyChain(repo.chain("c_b"))).ok);
      const heads = await repo.heads();
      t.deepEqual(heads.find((h) => h.customer_id === "c_a")?.last_seq, report.last_seq);
      t.deepEqual(heads.find((h) => h.customer_id === "c_a")?.last_hash, report.last_hash);
    } finally {
      await store.drop();
    }
  });

  test(`${backend.name}: a batch rolled back after its append leaves the remembered head wrong; the next append notices and the chain stays whole`, async (t) => {
    const store = await backend.open();
    try {
      await migrate(store.db);
      const repo = new AuditRepository(store.db);
      await repo.append(store.db, records("c_r", 2));
      await t.throwsAsync(
        store.db.transaction(async (tx) => {
          await repo.appendBatch(tx, records("c_r", 3));
          throw new Error("caller gave up");
        }),
      );
      await repo.append(store.db, records("c_r", 2));
      await repo.append(store.db, records("c_r", 1), { dedupe: true });
      const report = await verifyChain(repo.chain("c_r"));
      t.true(report.ok, JSON.stringify(report.first_broken));
      t.is(report.checked, 5);
    } finally {
      await store.drop();
    }
  });
}
