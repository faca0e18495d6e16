import test from "ava";
import { pendingRecord } from "../../test/support/audit-seed.js";
import { type Backend, storeBackends } from "../../test/support/databases.js";
import { canonicalJson } from "../audit/canonical-json.js";
import { sha256Hex } from "../audit/audit-record.js";
import { unescapeStoredString } from "../audit/storable-record.js";
import { type ChainedRecord, verifyChain } from "../audit/verify-chain.js";
import { AuditRepository } from "./audit-repository.js";
import type { Database, Queryable } from "./database.js";
import { migrate } from "./migrate.js";

const records = (customerId: string, n: number) =>
  Array.from({ length: n }, (_, i) =>
    pendingRecord(customerId, new Date(Date.UTC(2026, 0, 1, 0, i))),
  );

/** Statements sent, by their first words (what a batch costs the store). */
function counting(db: Database): { db: Database; statements: string[] } {
  const statements: string[] = [];
  const note = (text: string) => statements.push(text.trim().split(/\s+/).slice(0, 2).join(" "));
  const noted = (q: Queryable): Queryable => ({
    ...q,
    query: (text, params) => (note(text), q.query(text, params)),
    ...(q.copyRows && {
      copyRows: async (table, columns, rows, guard) => {
        if (guard !== undefined) note(guard.split("(")[0] ?? guard);
        const copied = (await q.copyRows?.(table, columns, rows, guard)) ?? false;
        if (copied) note(`COPY ${table}`);
        return copied;
      },
    }),
  });
  const wrapped: Database = {
    ...db,
    ...noted(db),
    transaction: (fn) =>
      db.transaction((tx) => {
        note("BEGIN");
        return fn(noted(tx));
      }),
  };
  return { db: wrapped, statements };
}

/** What appending after a head checked in the store costs: one query that moves the head and
 * COPYs the rows (one statement where the store has no COPY). */
const afterHead = (db: Database) =>
  db.copyRows ? ["SELECT audit_move_head", "COPY audit_records"] : ["WITH head"];
/** What appending after heads locked in a transaction costs: the lock of every head (one
 * statement), then one query that moves them all and COPYs every row. */
const locked = (db: Database) => [
  "BEGIN",
  "INSERT INTO",
  ...(db.copyRows ? ["UPDATE audit_chain_heads", "COPY audit_records"] : ["WITH head"]),
];

/** A fresh migrated store, its statements counted, and two repositories writing to it (replicas). */
async function twoWriters(backend: Backend) {
  const store = await backend.open();
  await migrate(store.db);
  const { db, statements } = counting(store.db);
  return { store, db, statements, first: new AuditRepository(db), second: new AuditRepository(db) };
}

for (const backend of storeBackends()) {
  test(`${backend.name}: two writers on one store (replicas) extend one chain; a head moved by the other is noticed, and a batch of a known head is one statement (one message with COPY)`, async (t) => {
    const { store, db, statements, first, second } = await twoWriters(backend);
    try {
      await first.append(db, records("c_a", 3)); // new chain: locked
      t.deepEqual(statements, locked(db));
      statements.length = 0;
      await first.append(db, records("c_a", 4)); // head known and unchanged: one statement
      t.deepEqual(statements, afterHead(db));
      await second.append(db, records("c_a", 2)); // head not known here: locked
      statements.length = 0;
      await first.append(db, records("c_a", 5)); // head moved by `second`: checked, then locked
      // The check finds the head moved: nothing copied, then the locked append.
      const moved = db.copyRows ? ["SELECT audit_move_head"] : ["WITH head"];
      t.deepEqual(statements, [...moved, ...locked(db)]);
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

  test(`${backend.name}: a batch of several customers locks every head in one statement and COPYs every row in one query; writers with overlapping customers in any order do not deadlock`, async (t) => {
    const { store, db, statements, first, second } = await twoWriters(backend);
    try {
      await first.append(db, [...records("c_z", 1), ...records("c_x", 2), ...records("c_y", 3)]);
      t.deepEqual(statements, locked(db), "three customers: still one lock and one COPY");
      // Each writer appends the same customers, listed in opposite orders, many times at once.
      const customers = ["c_x", "c_y", "c_z", "c_w"];
      const batchOf = (order: string[]) => order.flatMap((c) => records(c, 2));
      await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          Promise.all([
            first.append(db, batchOf(i % 2 === 0 ? customers : [...customers].reverse())),
            second.append(db, batchOf(i % 2 === 0 ? [...customers].reverse() : customers)),
          ]),
        ),
      );
      const repo = new AuditRepository(store.db);
      for (const [customer, before] of [
        ["c_x", 2],
        ["c_y", 3],
        ["c_z", 1],
        ["c_w", 0],
      ] as const) {
        const report = await verifyChain(repo.chain(customer));
        t.true(report.ok, `${customer}: ${JSON.stringify(report.first_broken)}`);
        t.is(report.checked, before + 8 * 2 * 2, customer);
      }
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

for (const backend of storeBackends()) {
  test(`${backend.name}: customer ids with quotes, dollar quotes, backslashes and SQL in them get their own chains (the embedded store writes them into its guard as literals)`, async (t) => {
    const store = await backend.open();
    try {
      await migrate(store.db);
      const ids = ["c'q", "c$fn$x", "c\\b", "c'); DROP TABLE audit_records; --"];
      const first = new AuditRepository(store.db);
      const second = new AuditRepository(store.db);
      for (const id of ids) {
        await first.append(store.db, records(id, 2)); // a new chain: locked
        await first.append(store.db, records(id, 3)); // the head remembered: the guard alone
        await second.append(store.db, records(id, 1)); // moves the head behind first's back
        await first.append(store.db, records(id, 2)); // the guard refuses; then locked
      }
      for (const id of ids) {
        const report = await verifyChain(first.chain(id));
        t.true(report.ok, `${id}: ${JSON.stringify(report.first_broken)}`);
        t.is(report.checked, 8, id);
      }
      const heads = await first.heads();
      t.deepEqual(heads.map((h) => h.customer_id).sort(), [...ids].sort());
    } finally {
      await store.drop();
    }
  });
}

/** Strings COPY's text format or JSON treat specially, in every kind of place a record has. */
const AWKWARD = [
  "back\\slash",
  "tab\there",
  "new\nline",
  "cr\rhere",
  "\\N",
  "\\.",
  "’ü🙂",
  "'; DROP TABLE audit_records; --",
];

for (const backend of storeBackends()) {
  test(`${backend.name}: awkward text in fields and content is stored as it was and the chain verifies`, async (t) => {
    const store = await backend.open();
    try {
      await migrate(store.db);
      const repo = new AuditRepository(store.db);
      const batch = AWKWARD.map((text, i) => {
        const r = pendingRecord("c_w", new Date(Date.UTC(2026, 0, 1, 0, i)), text);
        const content = { mode: "full", request: { text }, response: text };
        const fields = { ...r.fields, content_sha256: sha256Hex(canonicalJson(content)) };
        return { fields, content };
      });
      await repo.append(store.db, batch);
      const stored = [];
      for await (const r of repo.chain("c_w")) stored.push(r);
      t.deepEqual(
        stored.map((r) => [r.fields?.model, r.row?.model, r.row?.content]),
        AWKWARD.map((text) => [text, text, { mode: "full", request: { text }, response: text }]),
      );
      const report = await verifyChain(repo.chain("c_w"));
      t.true(report.ok, JSON.stringify(report.first_broken));
      t.is(report.checked, AWKWARD.length);
    } finally {
      await store.drop();
    }
  });
}

for (const backend of storeBackends()) {
  test(`${backend.name}: NUL and lone surrogates in fields and content are stored escaped (never mangled by the UTF-8 on the way) and read back exactly`, async (t) => {
    const store = await backend.open();
    try {
      await migrate(store.db);
      const repo = new AuditRepository(store.db);
      const hostile = ["nul\u0000here", "lone \ud800 high", "lone \udc00 low", "ok \ud83d\ude42"];
      const batch = hostile.map((text, i) => {
        const r = pendingRecord("c_h", new Date(Date.UTC(2026, 0, 2, 0, i)), text);
        const content = { mode: "full", request: { text }, response: null };
        return {
          fields: { ...r.fields, content_sha256: sha256Hex(canonicalJson(content)) },
          content,
        };
      });
      await repo.append(store.db, batch);
      const stored: ChainedRecord[] = [];
      for await (const r of repo.chain("c_h")) stored.push(r);
      const model = (r: ChainedRecord) => {
        const value = r.fields?.model ?? "";
        return r.fields?.escaped?.includes("/model") ? unescapeStoredString(value) : value;
      };
      t.deepEqual(stored.map(model), hostile);
      t.deepEqual(
        stored.map((r) => r.fields?.escaped ?? []),
        [
          ["/subject", "/model", "/content/request/text"],
          ["/subject", "/model", "/content/request/text"],
          ["/subject", "/model", "/content/request/text"],
          [],
        ],
      );
      const report = await verifyChain(repo.chain("c_h"));
      t.true(report.ok, JSON.stringify(report.first_broken));
      t.is(report.checked, hostile.length);
    } finally {
      await store.drop();
    }
  });
}

for (const backend of storeBackends()) {
  test(`${backend.name}: a batch of hundreds of records (on PGlite, several pieces of binary COPY data, their buffers moved to the store thread) goes in whole, in order, and verifies`, async (t) => {
    const store = await backend.open();
    try {
      await migrate(store.db);
      const repo = new AuditRepository(store.db);
      const batch = Array.from({ length: 400 }, (_, i) =>
        pendingRecord(
          "c_big",
          new Date(Date.UTC(2026, 0, 3, 0, 0, i)),
          `model-${i}-ü🙂\t${"y".repeat(i % 300)}`,
        ),
      );
      await repo.append(store.db, batch);
      const stored: ChainedRecord[] = [];
      for await (const r of repo.chain("c_big")) stored.push(r);
      t.deepEqual(
        stored.map((r) => r.fields?.model),
        batch.map((r) => r.fields.model),
      );
      const report = await verifyChain(repo.chain("c_big"));
      t.true(report.ok, JSON.stringify(report.first_broken));
      t.is(report.checked, 400);
    } finally {
      await store.drop();
    }
  });
}

test("pglite: rows go in by binary COPY; a batch with a time not in the gateway's own form goes in by COPY text, and both chains verify with the time as given", async (t) => {
  const store = storeBackends().find((b) => b.name === "pglite");
  if (!store) return t.fail("PGlite is always among the stores");
  const opened = await store.open();
  try {
    await migrate(opened.db);
    const formats: string[] = [];
    const copyRows = opened.db.copyRows?.bind(opened.db);
    if (!copyRows) return t.fail("PGlite offers COPY");
    const db: Database = {
      ...opened.db,
      copyRows: (table, columns, rows, guard) => {
        formats.push(rows.format);
        return copyRows(table, columns, rows, guard);
      },
    };
    const repo = new AuditRepository(db);
    await repo.append(db, records("c_fmt", 3)); // a new chain: its head is locked and read
    await repo.append(db, records("c_fmt", 1)); // after the known head: one COPY
    const offset = records("c_fmt", 2).map((r) => ({
      ...r,
      fields: { ...r.fields, occurred_at: "2026-01-01T02:30:00.5+02:00" },
    }));
    await repo.append(db, offset);
    t.deepEqual(formats, ["binary", "text"]);
    const stored: ChainedRecord[] = [];
    for await (const r of repo.chain("c_fmt")) stored.push(r);
    t.deepEqual(
      stored.map((r) => r.row?.occurred_at.toISOString()),
      [
        ...records("c_fmt", 3).map((r) => r.fields.occurred_at),
        ...records("c_fmt", 1).map((r) => r.fields.occurred_at),
        "2026-01-01T00:30:00.500Z",
        "2026-01-01T00:30:00.500Z",
      ],
    );
    const report = await verifyChain(repo.chain("c_fmt"));
    t.true(report.ok, JSON.stringify(report.first_broken));
    t.is(report.checked, 6);
  } finally {
    await opened.drop();
  }
});
