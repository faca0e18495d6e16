import { randomUUID } from "node:crypto";
import test from "ava";
import { startFakeUpstream } from "./fakes/fake-openai-upstream.js";
import { freshPostgresUrl, POSTGRES_URL } from "./support/databases.js";
import { customerKey, deployModel } from "./support/inference-fixture.js";
import { startTcpProxy } from "./support/tcp-proxy.js";
import { call, startTestApp } from "./support/test-app.js";
import { seedAuditRecords, verifyChain } from "./support/audit-seed.js";

test("a legal hold protects its range from the sweeper; after release the next sweep deletes, and the chain still verifies", async (t) => {
  const app = await startTestApp();
  const day = 86_400_000;
  try {
    const now = Date.now();
    await seedAuditRecords(app, "c_chain", [
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
    t.true((await verifyChain(app)).ok, "tombstones keep the chain verifiable");

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
    t.true((await verifyChain(app)).ok);
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
