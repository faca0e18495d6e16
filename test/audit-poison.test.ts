import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import test from "ava";
import { managementRecord } from "../dataplane/audit/management-record.js";
import { unescapeStoredString } from "../dataplane/audit/storable-record.js";
import type { PendingAuditRecord } from "../dataplane/store/audit-repository.js";
import { AuditQuarantineRepository } from "../dataplane/store/audit-quarantine-repository.js";
import { startFakeUpstream } from "./fakes/fake-openai-upstream.js";
import { freshPostgresUrl, POSTGRES_URL } from "./support/databases.js";
import { customerKey, deployModel } from "./support/inference-fixture.js";
import { call, startTestApp, type RunningApp } from "./support/test-app.js";
import { within } from "./support/within.js";

const NUL = String.fromCharCode(0);

interface Listed {
  data: {
    subject: string | null;
    action: string;
    details: Record<string, unknown> | null;
    escaped?: string[];
  }[];
}

/** Each store this machine has: embedded always, real Postgres when DATABASE_URL is set. */
async function withApp(
  store: "pglite" | "postgres",
  fn: (app: RunningApp) => Promise<void>,
  env: Record<string, string> = {},
): Promise<void> {
  const fresh = store === "postgres" ? await freshPostgresUrl() : undefined;
  const app = await startTestApp({
    env: { ...env, ...(fresh ? { DATABASE_URL: fresh.url } : {}) },
  });
  try {
    await fn(app);
  } finally {
    await app.close();
    await fresh?.drop();
  }
}

const stores = POSTGRES_URL ? (["pglite", "postgres"] as const) : (["pglite"] as const);

for (const store of stores) {
  test(`a lone surrogate or NUL in a model name or a customer's name cannot stop audit ingestion for anyone (${store}, fake upstream)`, async (t) => {
    const upstream = await startFakeUpstream({ recordRequests: false });
    try {
      await withApp(store, async (app) => {
        await deployModel(app.url, app.adminKey, { name: "ok-model" }, upstream.url);
        const attacker = await customerKey(app.url, app.adminKey, "enterprise");
        const other = await customerKey(app.url, app.adminKey, "enterprise");
        const chat = (key: string, model: string) =>
          call(app.url, "POST", "/v1/chat/completions", key, {
            model,
            messages: [{ role: "user", content: "hi" }],
          });
        for (const model of ["\ud800", `x${NUL}y`]) {
          const res = await chat(attacker, model);
          t.true(res.status === 404 || res.status === 422, `answered, not 5xx: ${res.status}`);
        }
        // An admin renames a customer to such strings (the edge may refuse it; the audit path
        // must survive either way).
        const victim = await call(app.url, "POST", "/api/v1/customers", app.adminKey, {
          name: "renamed",
          tier: "free",
        });
        for (const name of ["\ud800", `a${NUL}b`]) {
          const res = await call(
            app.url,
            "PATCH",
            `/api/v1/customers/${victim.json.id as string}`,
            app.adminKey,
            { name },
          );
          t.true(res.status < 500 || res.status === 503, `rename answered ${res.status}`);
        }
        for (let i = 0; i < 5; i++) t.is((await chat(other, "ok-model")).status, 200);

        const otherRecords = await call(
          app.url,
          "GET",
          "/api/v1/audit/records?kind=inference",
          other,
        );
        t.is((otherRecords.json as unknown as Listed).data.length, 5, "other tenants' records");
        t.true((await call(app.url, "GET", "/api/v1/audit/verify", other)).json.ok as boolean);

        const own = (await call(app.url, "GET", "/api/v1/audit/records?kind=inference", attacker))
          .json as unknown as Listed;
        // Each refused call has its record. The HTTP edge refuses such strings (422) before they
        // reach a record; where one does reach it (another path), it is escaped, said so, and
        // restored exactly (storable-record.test.ts covers the escaping itself).
        t.is(own.data.length, 2, "the attacker's two calls are recorded");
        for (const r of own.data) {
          if (r.escaped === undefined) continue;
          t.deepEqual(r.escaped, ["/subject"], "the record says what was escaped");
          t.true([`x${NUL}y`, "\ud800"].includes(unescapeStoredString(r.subject ?? "")));
        }
        t.true((await call(app.url, "GET", "/api/v1/audit/verify", attacker)).json.ok as boolean);
        const admin = await call(app.url, "GET", "/api/v1/audit/verify", app.adminKey);
        t.true(admin.json.ok as boolean, "the admin's chain (management records) verifies");
        t.true(app.app.ctx.audit.writer.spooling === false, "nothing is stuck in the local log");
        t.is((await call(app.url, "GET", "/readyz", undefined)).status, 200);
      });
    } finally {
      await upstream.close();
    }
  });

  test(`a record the store refuses even after escaping is quarantined with a metric; ingestion moves on (${store})`, async (t) => {
    const record = (customerId: string, occurredAt: string): PendingAuditRecord =>
      managementRecord({
        customerId,
        keyId: null,
        action: "test.poison",
        subject: null,
        details: null,
        occurredAt,
      });
    const now = new Date().toISOString();
    // A log left by an earlier run: a line that is not a record at all between two records.
    const dir = await mkdtemp(path.join(tmpdir(), "evident-poison-"));
    const line = (r: PendingAuditRecord) => `${JSON.stringify(r)}\n`;
    await writeFile(
      path.join(dir, "00000001.jsonl"),
      line(record("c_boot", now)) + "{not json\n" + line(record("c_boot", now)),
    );
    await withApp(
      store,
      async (app) => {
        const writer = app.app.ctx.audit.writer;
        const poison = record("c_poison", "not a time");
        await writer.append(poison);
        for (let i = 0; i < 3; i++) await writer.append(record("c_after", now));

        const quarantine = new AuditQuarantineRepository(app.app.ctx.db);
        t.true(
          await within(60_000, async () => (await quarantine.list()).length >= 2),
          "the refused record and the unreadable line are quarantined",
        );
        const quarantined = await quarantine.list();
        const kept = quarantined.find((q) => q.recordId === poison.fields.id);
        t.deepEqual(JSON.parse(kept?.line ?? "{}"), poison, "kept whole");
        t.truthy(quarantined.find((q) => q.line === "{not json"));
        for (const customer of ["c_boot", "c_after"]) {
          const listed = await call(
            app.url,
            "GET",
            `/api/v1/audit/records?customer_id=${customer}`,
            app.adminKey,
          );
          t.is((listed.json.data as unknown[]).length, customer === "c_boot" ? 2 : 3, customer);
        }
        const metrics = await app.app.ctx.metrics.registry.getSingleMetricAsString(
          "evident_audit_quarantined_total",
        );
        t.regex(metrics, /evident_audit_quarantined_total 2\b/);
        t.false(writer.spooling);
        t.is((await call(app.url, "GET", "/readyz", undefined)).status, 200);
      },
      { AUDIT_SPOOL_DIR: dir },
    );
    await rm(dir, { recursive: true, force: true });
  });
}
