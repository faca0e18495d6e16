import test from "ava";
import { storeBackends, freshPostgresUrl, POSTGRES_URL } from "../../test/support/databases.js";
import { ApiKeyRepository } from "./api-key-repository.js";
import { CustomerRepository } from "./customer-repository.js";
import { isMigrated, migrate } from "./migrate.js";
import { migrations } from "./migrations/index.js";
import { openPostgres } from "./postgres-database.js";

for (const backend of storeBackends()) {
  test(`${backend.name}: migrations apply once, and running them again changes nothing`, async (t) => {
    const { db, drop } = await backend.open();
    try {
      t.false(await isMigrated(db));
      const first = await migrate(db);
      t.deepEqual(
        first.applied,
        migrations.map((m) => m.id),
      );
      t.true(await isMigrated(db));
      const second = await migrate(db);
      t.deepEqual(second.applied, []);
      const rows = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM schema_migrations",
      );
      t.is(rows[0]?.n, migrations.length);
    } finally {
      await drop();
    }
  });

  test(`${backend.name}: customers and keys round-trip with the same SQL`, async (t) => {
    const { db, drop } = await backend.open();
    try {
      await migrate(db);
      const customers = new CustomerRepository(db);
      const keys = new ApiKeyRepository(db);
      const hostile = "Robert'); DROP TABLE customers;--";
      const c = await customers.create({ id: "cus_a", name: hostile, tier: "pro" });
      t.is(c.name, hostile, "stored literally, never interpreted");
      t.is((await customers.ensure({ id: "cus_a", name: "other", tier: "free" })).name, hostile);
      const k = await keys.create({
        id: "key_a",
        customerId: "cus_a",
        name: "ci",
        role: "member",
        classificationFloor: "internal",
        keyHash: "a".repeat(64),
        hint: "ev_sk_abcd...",
        createdBy: null,
      });
      t.is(k.classificationFloor, "internal");
      t.is((await keys.findByHash("a".repeat(64)))?.id, "key_a");
      t.is(await keys.get("key_a", "cus_other"), undefined, "scoped reads never cross customers");
      t.is((await keys.list({ customerId: "cus_a", limit: 10, offset: 0 })).length, 1);
      t.is((await keys.list({ customerId: "cus_other", limit: 10, offset: 0 })).length, 0);
      t.is(await keys.revoke("key_a", "cus_other"), undefined);
      const revoked = await keys.revoke("key_a", "cus_a");
      t.truthy(revoked?.key.revokedAt);
      t.is(revoked?.keyHash, "a".repeat(64));
      await keys.touch(["key_a"], new Date(1000));
      t.is((await keys.get("key_a", null))?.lastUsedAt, null, "revoked keys are not touched");
      t.is((await customers.update("cus_a", { tier: "business" }))?.tier, "business");
      t.is(await customers.update("nope", { tier: "free" }), undefined);
      await t.throwsAsync(customers.create({ id: "cus_b", name: "x", tier: "gold" as "free" }));
    } finally {
      await drop();
    }
  });
}

if (POSTGRES_URL) {
  test("postgres: replicas migrating the same fresh database at once do not race", async (t) => {
    const fresh = await freshPostgresUrl();
    const replicas = Array.from({ length: 4 }, () =>
      openPostgres({ connectionString: fresh.url, max: 2 }),
    );
    try {
      const results = await Promise.all(replicas.map((db) => migrate(db)));
      const appliedTotal = results.flatMap((r) => r.applied);
      t.deepEqual(
        appliedTotal.sort(),
        migrations.map((m) => m.id).sort(),
        "each migration ran once",
      );
      for (const db of replicas) t.true(await isMigrated(db));
    } finally {
      await Promise.all(replicas.map((db) => db.close()));
      await fresh.drop();
    }
  });
} else {
  test.skip("postgres: concurrent migrations (set DATABASE_URL to run)", () => undefined);
}
