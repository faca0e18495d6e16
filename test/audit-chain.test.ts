import test from "ava";
import { seedAuditRecords, verifyChain } from "./support/audit-seed.js";
import { call, startTestApp } from "./support/test-app.js";

for (const tampering of [
  {
    name: "editing a record",
    sql: "UPDATE audit_records SET fields = jsonb_set(fields::jsonb, '{status}', '500')::json WHERE customer_id = 'c_chain' AND seq = 4",
    seq: 4,
  },
  {
    name: "removing a record",
    sql: "DELETE FROM audit_records WHERE customer_id = 'c_chain' AND seq = 3",
    seq: 3,
  },
  {
    name: "reordering two records",
    sql: `UPDATE audit_records SET seq = -seq WHERE customer_id = 'c_chain' AND seq IN (5, 6);
          UPDATE audit_records SET seq = CASE seq WHEN -5 THEN 6 ELSE 5 END WHERE customer_id = 'c_chain' AND seq IN (-5, -6);
          UPDATE audit_records SET fields = jsonb_set(fields::jsonb, '{seq}', to_jsonb(seq))::json WHERE customer_id = 'c_chain' AND seq IN (5, 6)`,
    seq: 5,
  },
]) {
  test(`${tampering.name} makes verification fail at that point`, async (t) => {
    const app = await startTestApp();
    try {
      await seedAuditRecords(
        app,
        "c_chain",
        Array.from({ length: 8 }, () => new Date()),
      );
      t.true((await verifyChain(app)).ok);
      await app.app.ctx.db.exec(tampering.sql);
      const report = await verifyChain(app);
      t.false(report.ok);
      t.is(report.first_broken?.seq, tampering.seq);
    } finally {
      await app.close();
    }
  });
}

/**
 * Every column of audit_records, edited in SQL, is reported by verification at that record. The
 * query columns (kind, request_id, model, outcome) are written by the ingester from the hashed
 * fields, and verification compares them with the fields (reason column_mismatch).
 */
const columnEdits: { column: string; sql: string; reason?: string }[] = [
  { column: "id", sql: "SET id = 'aud_forged'" },
  { column: "customer_id", sql: "SET customer_id = 'c_other'", reason: "sequence_gap" },
  { column: "seq", sql: "SET seq = 99", reason: "sequence_gap" },
  { column: "occurred_at", sql: "SET occurred_at = occurred_at - interval '1 day'" },
  { column: "kind", reason: "column_mismatch", sql: "SET kind = 'management'" },
  { column: "request_id", reason: "column_mismatch", sql: "SET request_id = 'req_forged'" },
  { column: "model", reason: "column_mismatch", sql: "SET model = 'gpt-forged'" },
  { column: "outcome", reason: "column_mismatch", sql: "SET outcome = 'blocked'" },
  {
    column: "fields",
    sql: "SET fields = jsonb_set(fields::jsonb, '{outcome}', '\"blocked\"')::json",
  },
  {
    column: "content",
    sql: "SET content = jsonb_set(content::jsonb, '{request}', '{\"x\": 2}')::json",
  },
  { column: "record_digest", sql: "SET record_digest = repeat('a', 64)" },
  { column: "prev_hash", sql: "SET prev_hash = repeat('b', 64)" },
  { column: "hash", sql: "SET hash = repeat('c', 64)" },
  { column: "tombstoned_at", sql: "SET tombstoned_at = now()" },
];

test("editing any column of audit_records in SQL is reported by verification at that record", async (t) => {
  const app = await startTestApp();
  try {
    const customer = (column: string) => `c_col_${column}`;
    const report = async (column: string) =>
      (
        await call(
          app.url,
          "GET",
          `/api/v1/audit/verify?customer_id=${customer(column)}`,
          app.adminKey,
        )
      ).json as { ok: boolean; first_broken: { seq: number; reason: string } | null };
    for (const edit of columnEdits) {
      await seedAuditRecords(
        app,
        customer(edit.column),
        Array.from({ length: 6 }, () => new Date()),
      );
      t.true((await report(edit.column)).ok);
    }
    const update = (edit: (typeof columnEdits)[number]) =>
      app.app.ctx.db.exec(
        `UPDATE audit_records ${edit.sql} WHERE customer_id = '${customer(edit.column)}' AND seq = 4`,
      );
    for (const edit of columnEdits) {
      await update(edit);
      const r = await report(edit.column);
      t.false(r.ok, edit.column);
      t.is(r.first_broken?.seq, 4, edit.column);
      if (edit.reason) t.is(r.first_broken?.reason, edit.reason, edit.column);
    }
  } finally {
    await app.close();
  }
});

test("recomputing the chain after an edit is caught by the signed checkpoint", async (t) => {
  const app = await startTestApp();
  try {
    await seedAuditRecords(
      app,
      "c_chain",
      Array.from({ length: 5 }, () => new Date()),
    );
    t.is(await app.app.ctx.audit.checkpoint(), 1);
    // A forger rewrites record 5 and recomputes its digest and hash consistently.
    const { recordDigest, chainHash } = await import("../dataplane/audit/audit-record.js");
    const [row] = await app.app.ctx.db.query<{
      fields: Parameters<typeof recordDigest>[0];
      prev_hash: string;
    }>("SELECT fields, prev_hash FROM audit_records WHERE customer_id = 'c_chain' AND seq = 5");
    const forged = { ...(row?.fields as Parameters<typeof recordDigest>[0]), status: 418 };
    const digest = recordDigest(forged);
    await app.app.ctx.db.query(
      "UPDATE audit_records SET fields = $1::json, record_digest = $2, hash = $3 WHERE customer_id = 'c_chain' AND seq = 5",
      [JSON.stringify(forged), digest, chainHash(row?.prev_hash ?? "", digest)],
    );
    const report = await verifyChain(app);
    t.false(report.ok);
    t.deepEqual(report.first_broken, { seq: 5, reason: "checkpoint_mismatch" });
  } finally {
    await app.close();
  }
});
