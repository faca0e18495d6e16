import { randomUUID } from "node:crypto";
import test from "ava";
import { canonicalJson, sha256Hex } from "../dataplane/audit/audit-record.js";
import type { PendingAuditRecord } from "../dataplane/store/audit-repository.js";
import { startFakeUpstream } from "./fakes/fake-openai-upstream.js";
import { freshPostgresUrl, POSTGRES_URL } from "./support/databases.js";
import { customerKey, deployModel } from "./support/inference-fixture.js";
import { startTcpProxy } from "./support/tcp-proxy.js";
import { call, startTestApp, type RunningApp } from "./support/test-app.js";

function pending(customerId: string, occurredAt: Date, model = "m"): PendingAuditRecord {
  const content = { mode: "full", request: { x: 1 }, response: null };
  return {
    fields: {
      id: `aud_${randomUUID()}`,
      customer_id: customerId,
      occurred_at: occurredAt.toISOString(),
      kind: "inference",
      request_id: randomUUID(),
      key_id: "key_x",
      action: "chat.completions",
      subject: model,
      model,
      backend: null,
      route: null,
      classification: "public",
      verdicts: [],
      usage: null,
      cost_usd: null,
      latency_ms: 1,
      status: 200,
      error_code: null,
      outcome: "completed",
      request_sha256: null,
      response_sha256: null,
      content_sha256: sha256Hex(canonicalJson(content)),
      details: null,
    },
    content,
  };
}

async function seed(app: RunningApp, customerId: string, times: Date[]): Promise<void> {
  const repo = app.app.ctx.repos.audit;
  await app.app.ctx.db.transaction((tx) =>
    repo.appendBatch(
      tx,
      times.map((t) => pending(customerId, t)),
    ),
  );
}

const verify = async (app: RunningApp, query = "") =>
  (await call(app.url, "GET", `/api/v1/audit/verify?customer_id=c_chain${query}`, app.adminKey))
    .json as {
    ok: boolean;
    checked: number;
    first_broken: { seq: number; reason: string } | null;
  };

for (const tampering of [
  {
    name: "editing a record",
    sql: "UPDATE audit_records SET fields = jsonb_set(fields, '{status}', '500') WHERE customer_id = 'c_chain' AND seq = 4",
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
          UPDATE audit_records SET fields = jsonb_set(fields, '{seq}', to_jsonb(seq)) WHERE customer_id = 'c_chain' AND seq IN (5, 6)`,
    seq: 5,
  },
]) {
  test(`${tampering.name} makes verification fail at that point`, async (t) => {
    const app = await startTestApp();
    try {
      await seed(
        app,
        "c_chain",
        Array.from({ length: 8 }, () => new Date()),
      );
      t.true((await verify(app)).ok);
      await app.app.ctx.db.exec(tampering.sql);
      const report = await verify(app);
      t.false(report.ok);
      t.is(report.first_broken?.seq, tampering.seq);
    } finally {
      await app.close();
    }
  });
}

/**
 * Every column of audit_records, edited in SQL, is reported by verification at that record. The
 * query columns are generated from the hashed fields, so the store refuses to edit them; with the
 * generation dropped (someone with DDL rights), verification still compares them.
 */
const columnEdits: { column: string; sql: string; generated?: boolean; reason?: string }[] = [
  { column: "id", sql: "SET id = 'aud_forged'" },
  { column: "customer_id", sql: "SET customer_id = 'c_other'", reason: "sequence_gap" },
  { column: "seq", sql: "SET seq = 99", reason: "sequence_gap" },
  { column: "occurred_at", sql: "SET occurred_at = occurred_at - interval '1 day'" },
  { column: "kind", sql: "SET kind = 'management'", generated: true },
  { column: "request_id", sql: "SET request_id = 'req_forged'", generated: true },
  { column: "model", sql: "SET model = 'gpt-forged'", generated: true },
  { column: "outcome", sql: "SET outcome = 'blocked'", generated: true },
  { column: "fields", sql: "SET fields = jsonb_set(fields, '{outcome}', '\"blocked\"')" },
  { column: "content", sql: "SET content = jsonb_set(content, '{request}', '{\"x\": 2}')" },
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
      await seed(
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
    for (const edit of columnEdits.filter((e) => e.generated)) {
      const refused = await update(edit).then(
        () => undefined,
        (err: unknown) => err,
      );
      t.truthy(refused, `the store refuses to edit the generated column ${edit.column}`);
      await app.app.ctx.db.exec(
        `ALTER TABLE audit_records ALTER COLUMN ${edit.column} DROP EXPRESSION`,
      );
    }
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
    await seed(
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
      "UPDATE audit_records SET fields = $1::jsonb, record_digest = $2, hash = $3 WHERE customer_id = 'c_chain' AND seq = 5",
      [JSON.stringify(forged), digest, chainHash(row?.prev_hash ?? "", digest)],
    );
    const report = await verify(app);
    t.false(report.ok);
    t.deepEqual(report.first_broken, { seq: 5, reason: "checkpoint_mismatch" });
  } finally {
    await app.close();
  }
});

test("a legal hold protects its range from the sweeper; after release the next sweep deletes, and the chain still verifies", async (t) => {
  const app = await startTestApp();
  const day = 86_400_000;
  try {
    const now = Date.now();
    await seed(app, "c_chain", [
      new Date(now - 20 * day),
      new Date(now - 15 * day),
      new Date(now - 10 * day),
      new Date(now - 5 * day),
      new Date(now),
    ]);
    const admin = app.adminKey;
    const patch = await call(
      app.url,
      "PATCH",
      "/api/v1/audit/retention?customer_id=c_chain",
      admin,
      { metadata_days: 7, content_days: 1 },
    );
    t.is(patch.status, 200);
    const hold = await call(
      app.url,
      "POST",
      "/api/v1/audit/legal-hold?customer_id=c_chain",
      admin,
      {
        from: new Date(now - 16 * day).toISOString(),
        to: new Date(now - 9 * day).toISOString(),
        reason: "litigation 2026-17",
      },
    );
    t.is(hold.status, 201);
    const report = await call(
      app.url,
      "GET",
      "/api/v1/audit/retention/report?customer_id=c_chain",
      admin,
    );
    t.is((report.json.counts as Record<string, number>).held, 2);
    t.is((report.json.counts as Record<string, number>).due_records, 1);

    const first = await app.app.ctx.sweeper.sweep();
    t.is(first.recordsRemoved, 1, "only the expired record outside the hold");
    const kept = await app.app.ctx.db.query<{ seq: number; deleted: boolean }>(
      "SELECT seq, fields IS NULL AS deleted FROM audit_records WHERE customer_id = 'c_chain' ORDER BY seq",
    );
    t.deepEqual(
      kept.slice(0, 5).map((r) => r.deleted),
      [true, false, false, false, false],
    );
    t.true((await verify(app)).ok, "tombstones keep the chain verifiable");

    t.is(
      (await call(app.url, "DELETE", `/api/v1/audit/legal-hold/${hold.json.id as string}`, admin))
        .status,
      204,
    );
    const listed = await call(
      app.url,
      "GET",
      "/api/v1/audit/legal-hold?customer_id=c_chain",
      admin,
    );
    t.false((listed.json.data as { active: boolean }[])[0]?.active);
    const second = await app.app.ctx.sweeper.sweep();
    t.is(second.recordsRemoved, 2);
    t.true((await verify(app)).ok);
  } finally {
    await app.close();
  }
});

test("bad legal holds and retention values are 422", async (t) => {
  const app = await startTestApp();
  try {
    const post = (b: unknown) => call(app.url, "POST", "/api/v1/audit/legal-hold", app.adminKey, b);
    t.is(
      (await post({ from: "2026-02-01T00:00:00Z", to: "2026-01-01T00:00:00Z", reason: "x" }))
        .status,
      422,
    );
    t.is((await post({ from: "yesterday", to: "2026-01-01T00:00:00Z", reason: "x" })).status, 422);
    t.is((await post({ from: "2026-01-01T00:00:00Z", to: "2026-02-01T00:00:00Z" })).status, 422);
    t.is(
      (await call(app.url, "PATCH", "/api/v1/audit/retention", app.adminKey, { metadata_days: 0 }))
        .status,
      422,
    );
    t.is(
      (await call(app.url, "DELETE", "/api/v1/audit/legal-hold/hold_nope", app.adminKey)).status,
      404,
    );
  } finally {
    await app.close();
  }
});

for (const durability of ["local", "store"] as const) {
  if (POSTGRES_URL) {
    test(`postgres cut off in the middle of a load run: no record lost, spool replays in order, chain verifies (AUDIT_DURABILITY=${durability}, fake upstream, TCP proxy)`, async (t) => {
      const fresh = await freshPostgresUrl();
      const pgPort = Number(new URL(fresh.url).port || 5432);
      const proxy = await startTcpProxy(pgPort);
      const via = new URL(fresh.url);
      via.port = String(proxy.port);
      via.hostname = "127.0.0.1";
      const upstream = await startFakeUpstream({ recordRequests: false });
      const app = await startTestApp({
        env: {
          DATABASE_URL: via.toString(),
          DATA_DIR: `/tmp/evident-spool-${randomUUID()}`,
          AUDIT_DURABILITY: durability,
        },
      });
      try {
        await deployModel(app.url, app.adminKey, { name: "durable" }, upstream.url);
        const key = await customerKey(app.url, app.adminKey, "enterprise");
        let ok = 0;
        const failures: string[] = [];
        const total = 150;
        let sent = 0;
        const worker = async () => {
          while (sent < total) {
            const i = sent++;
            if (i === 50) proxy.cut();
            if (i === 110) proxy.restore();
            const res = await call(app.url, "POST", "/v1/chat/completions", key, {
              model: "durable",
              messages: [{ role: "user", content: `m${i}` }],
            });
            if (res.status === 200) ok++;
            else failures.push(`${i}: ${res.status} ${JSON.stringify(res.json)}`);
          }
        };
        await Promise.all(Array.from({ length: 5 }, worker));
        t.deepEqual(
          failures,
          [],
          "every call was served (audited to the spool while the store was away)",
        );
        t.is(ok, total);
        for (let i = 0; i < 200 && app.app.ctx.audit.writer.spooling; i++)
          await new Promise((r) => setTimeout(r, 50));
        t.false(app.app.ctx.audit.writer.spooling, "the spool was replayed");
        const check = await call(
          app.url,
          "GET",
          "/api/v1/audit/records?kind=inference&limit=1000",
          key,
        );
        t.is((check.json.data as unknown[]).length, total, "zero records lost");
        const verified = await call(app.url, "GET", "/api/v1/audit/verify", key);
        t.true(verified.json.ok as boolean);
      } finally {
        await app.close();
        await upstream.close();
        await proxy.close();
        await fresh.drop();
      }
    });
  } else {
    test.skip(`postgres outage test needs DATABASE_URL (${durability})`, () => undefined);
  }

  if (POSTGRES_URL) {
    test(`when the store is down and the spool is full, new calls are refused with 503 and /readyz says not ready, rather than served unaudited (AUDIT_DURABILITY=${durability}, fake upstream, TCP proxy)`, async (t) => {
      const fresh = await freshPostgresUrl();
      const proxy = await startTcpProxy(Number(new URL(fresh.url).port || 5432));
      const via = new URL(fresh.url);
      via.port = String(proxy.port);
      via.hostname = "127.0.0.1";
      const upstream = await startFakeUpstream({ recordRequests: false });
      const app = await startTestApp({
        env: {
          DATABASE_URL: via.toString(),
          DATA_DIR: `/tmp/evident-spool-${randomUUID()}`,
          AUDIT_SPOOL_MAX_BYTES: "4096",
          AUDIT_DURABILITY: durability,
        },
      });
      try {
        await deployModel(app.url, app.adminKey, { name: "tiny-spool" }, upstream.url);
        const key = await customerKey(app.url, app.adminKey, "enterprise");
        const ask = () =>
          call(app.url, "POST", "/v1/chat/completions", key, {
            model: "tiny-spool",
            messages: [{ role: "user", content: "x" }],
          });
        t.is((await ask()).status, 200);
        proxy.cut();
        const statuses: number[] = [];
        for (let i = 0; i < 15; i++) statuses.push((await ask()).status);
        t.true(statuses.includes(200), "the first calls are spooled and served");
        const refused = await ask();
        t.is(refused.status, 503);
        t.is((refused.json.error as { code: string }).code, "service_unavailable");
        t.truthy(refused.headers.get("retry-after"));
        const readyz = await call(app.url, "GET", "/readyz", undefined);
        t.is(readyz.status, 503);
        t.false((readyz.json.checks as Record<string, boolean>).audit);
        t.true(statuses.every((s) => s === 200 || s === 503));
        proxy.restore();
        for (let i = 0; i < 200 && app.app.ctx.audit.writer.spooling; i++)
          await new Promise((r) => setTimeout(r, 50));
        t.is((await ask()).status, 200, "served again once the spool is replayed");
        const served = statuses.filter((s) => s === 200).length + 2;
        const records = await call(
          app.url,
          "GET",
          "/api/v1/audit/records?kind=inference&outcome=completed&limit=1000",
          key,
        );
        t.is(
          (records.json.data as unknown[]).length,
          served,
          "every call that was served has its record",
        );
      } finally {
        await app.close();
        await upstream.close();
        await proxy.close();
        await fresh.drop();
      }
    });
  }
}
