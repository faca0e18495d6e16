import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "ava";
import { pino } from "pino";
import { buildAudit } from "../app/audit-wiring.js";
import { loadConfig } from "../config/config.js";
import { systemClock } from "../core/clock.js";
import { createMetrics } from "../observability/metrics.js";
import type { Database } from "../store/database.js";
import { migrate } from "../store/migrate.js";
import { openPglite } from "../store/pglite-database.js";
import { managementRecord } from "./management-record.js";

const record = (n: number) =>
  managementRecord({
    customerId: "cus_active_wait",
    keyId: null,
    action: "test.append",
    subject: `n${n}`,
    details: null,
    occurredAt: new Date().toISOString(),
  });

let db: Database;
test.before(async () => {
  db = await openPglite(undefined);
  await migrate(db);
});
test.after.always(() => db?.close());

/** The audit wiring on the embedded store and a fresh local log, as the app builds it. */
async function auditing(env: Record<string, string> = {}) {
  const dataDir = await mkdtemp(join(tmpdir(), "evident-active-wait-"));
  const wiring = await buildAudit({
    config: loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: "silent", ...env }),
    clock: systemClock,
    logger: pino({ level: "silent" }),
    metrics: createMetrics(),
    db,
  });
  return {
    writer: wiring.writer,
    async close() {
      await wiring.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

test.serial(
  "a lone record asks whether to wait actively; records of a group commit do not",
  async (t) => {
    const audit = await auditing();
    t.teardown(() => audit.close());
    let asked = 0;
    audit.writer.waitActivelyWhen(() => {
      asked += 1;
      return true;
    });
    await audit.writer.append(record(0));
    t.is(asked, 1);
    await new Promise((resolve) => setImmediate(resolve)); // that group commit's flush ends
    // The first goes alone (nothing else queued yet); the next three arrive during its write and
    // go together in one group commit, which is never waited for actively.
    await Promise.all([1, 2, 3, 4].map((n) => audit.writer.append(record(n))));
    t.is(asked, 2);
  },
);

test.serial("records are durable and ingested whether the wait is active or not", async (t) => {
  for (const [condition, env] of [
    [true, {}],
    [false, {}],
    [true, { AUDIT_ACTIVE_WAIT_MS: "0" }],
  ] as const) {
    const audit = await auditing(env);
    audit.writer.waitActivelyWhen(() => condition);
    for (let n = 0; n < 5; n++) await audit.writer.append(record(n));
    await audit.writer.caughtUp();
    t.false(audit.writer.spooling, `condition ${condition}, ${JSON.stringify(env)}`);
    await audit.close();
  }
});

test("AUDIT_ACTIVE_WAIT_MS takes 0 to 50 ms, 2 by default", (t) => {
  t.is(loadConfig({}).AUDIT_ACTIVE_WAIT_MS, 2);
  t.is(loadConfig({ AUDIT_ACTIVE_WAIT_MS: "0" }).AUDIT_ACTIVE_WAIT_MS, 0);
  t.throws(() => loadConfig({ AUDIT_ACTIVE_WAIT_MS: "-1" }));
  t.throws(() => loadConfig({ AUDIT_ACTIVE_WAIT_MS: "500" }));
  t.throws(() => loadConfig({ AUDIT_ACTIVE_WAIT_MS: "soon" }));
});
