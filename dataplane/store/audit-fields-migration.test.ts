import test from "ava";
import { storeBackends } from "../../test/support/databases.js";
import { chainHash, GENESIS_HASH, recordDigest, type AuditFields } from "../audit/audit-record.js";
import { escapeForStore, needsEscape } from "../audit/storable-record.js";
import { verifyChain } from "../audit/verify-chain.js";
import type { PendingAuditRecord } from "./audit-repository.js";
import { AuditRepository } from "./audit-repository.js";
import type { Database } from "./database.js";
import { migrate } from "./migrate.js";
import { migrations } from "./migrations/index.js";

/** Applies the migrations before `id` the way migrate() does, to stand for an older install. */
async function migrateBefore(db: Database, id: number): Promise<void> {
  await db.exec(
    "CREATE TABLE schema_migrations (id integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())",
  );
  for (const m of migrations.filter((x) => x.id < id)) {
    await db.exec(m.sql);
    await db.query("INSERT INTO schema_migrations (id, name) VALUES ($1, $2)", [m.id, m.name]);
  }
}

function fields(seq: number): AuditFields {
  return {
    action: "chat.completions",
    backend: "dep_1",
    classification: "public",
    content_sha256: null,
    cost_usd: 0.000017,
    customer_id: "c_upgrade",
    details: { note: 'naïve ✓ "quoted" \\ back' },
    error_code: null,
    id: `aud_upgrade_${seq}`,
    key_id: "key_1",
    kind: "inference",
    latency_ms: 3,
    model: seq === 2 ? null : "gpt-upgrade",
    occurred_at: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(),
    outcome: "completed",
    request_id: `req_upgrade_${seq}`,
    request_sha256: "a".repeat(64),
    response_sha256: null,
    route: null,
    seq,
    status: 200,
    subject: "gpt-upgrade",
    usage: { completion_tokens: 5, prompt_tokens: 7, source: "upstream", total_tokens: 12 },
    verdicts: [{ action: "allow", check: "pii", score: 0.25, threshold: 0.5 }],
  };
}

for (const backend of storeBackends()) {
  test(`${backend.name}: records stored as jsonb before migration 20 keep verifying after it, with their query columns`, async (t) => {
    const { db, drop } = await backend.open();
    try {
      await migrateBefore(db, 20);
      let prev = GENESIS_HASH;
      for (const seq of [1, 2, 3]) {
        const f = fields(seq);
        const digest = recordDigest(f);
        const hash = chainHash(prev, digest);
        await db.query(
          `INSERT INTO audit_records (id, customer_id, seq, occurred_at, fields, content,
             record_digest, prev_hash, hash)
           VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7, $8, $9)`,
          [f.id, f.customer_id, seq, f.occurred_at, JSON.stringify(f), null, digest, prev, hash],
        );
        prev = hash;
      }
      t.deepEqual((await migrate(db)).applied, [20]);
      const rows = await db.query<{ kind: string; request_id: string; model: string | null }>(
        "SELECT kind, request_id, model FROM audit_records ORDER BY seq",
      );
      t.deepEqual(rows, [
        { kind: "inference", request_id: "req_upgrade_1", model: "gpt-upgrade" },
        { kind: "inference", request_id: "req_upgrade_2", model: null },
        { kind: "inference", request_id: "req_upgrade_3", model: "gpt-upgrade" },
      ]);
      const repo = new AuditRepository(db);
      const report = await verifyChain(repo.chain("c_upgrade"));
      t.true(report.ok, JSON.stringify(report.first_broken));
      t.is(report.checked, 3);
      // The columns are plain now: an edit goes through, and verification reports it.
      await db.query("UPDATE audit_records SET model = 'gpt-forged' WHERE seq = 2");
      const edited = await verifyChain(repo.chain("c_upgrade"));
      t.deepEqual(edited.first_broken, { seq: 2, reason: "column_mismatch" });
    } finally {
      await drop();
    }
  });
}

const NUL = String.fromCharCode(0);

for (const backend of storeBackends()) {
  test(`${backend.name}: the query columns take hostile strings as the hashed fields hold them, and the chain verifies`, async (t) => {
    const { db, drop } = await backend.open();
    try {
      await migrate(db);
      const repo = new AuditRepository(db);
      // COPY's specials (tab, newline, backslash, \N, \.), quotes, a lone surrogate and NUL.
      const hostile = ["a\tb\nc", "\\N", "\\.", 'it\'s "q"', "\ud800x", `n${NUL}l`];
      const records: PendingAuditRecord[] = hostile.map((text, i) => {
        const { seq: _seq, ...rest } = fields(i + 1);
        return {
          fields: {
            ...rest,
            customer_id: "c_hostile",
            id: `aud_hostile_${i}`,
            model: text,
            request_id: `req_${text}`,
            outcome: text,
          },
          content: null,
        };
      });
      await repo.append(db, records);
      const report = await verifyChain(repo.chain("c_hostile"));
      t.true(report.ok, JSON.stringify(report.first_broken));
      t.is(report.checked, hostile.length);
      const rows = await db.query<{ model: string; request_id: string; outcome: string }>(
        "SELECT model, request_id, outcome FROM audit_records WHERE customer_id = 'c_hostile' ORDER BY seq",
      );
      // Where the store would refuse a string, the fields hold it escaped, and so does its column.
      const stored = (text: string) => (needsEscape(text) ? escapeForStore(text) : text);
      t.deepEqual(
        rows,
        hostile.map((text) => ({
          model: stored(text),
          request_id: stored(`req_${text}`),
          outcome: stored(text),
        })),
      );
      const byModel = await repo.list(
        { customerId: "c_hostile", model: "a\tb\nc" },
        { limit: 10, offset: 0 },
      );
      t.is(byModel.length, 1, "the filter finds the record by its model column");
    } finally {
      await drop();
    }
  });
}
