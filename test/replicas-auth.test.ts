import test from "ava";
import { freshPostgresUrl, POSTGRES_URL, REDIS_URL } from "./support/databases.js";
import { call, startTestApp } from "./support/test-app.js";
import { within } from "./support/within.js";

const sharedSetups: { name: string; env: (db: string) => Record<string, string> }[] = [];
if (POSTGRES_URL && REDIS_URL) {
  const redis = REDIS_URL;
  sharedSetups.push({
    name: "Postgres + Redis",
    env: (db) => ({ DATABASE_URL: db, REDIS_URL: redis }),
  });
}
if (POSTGRES_URL)
  sharedSetups.push({ name: "Postgres only (LISTEN/NOTIFY)", env: (db) => ({ DATABASE_URL: db }) });

for (const setup of sharedSetups) {
  test(`two replicas on ${setup.name}: a key revoked on one is refused by the other at once (broadcast, not the cache TTL)`, async (t) => {
    const fresh = await freshPostgresUrl();
    const a = await startTestApp({ env: setup.env(fresh.url) });
    const b = await startTestApp({ env: setup.env(fresh.url), adminKey: a.adminKey });
    try {
      const created = await call(a.url, "POST", "/api/v1/keys", a.adminKey, { name: "shared" });
      const key = created.json.key as string;
      t.is((await call(b.url, "GET", "/api/v1/health", key)).status, 200, "b has cached the key");
      await call(a.url, "DELETE", `/api/v1/keys/${created.json.id as string}`, a.adminKey);
      t.true(
        // Well inside the 60 s cache TTL: only the broadcast can make this true.
        await within(
          30_000,
          async () => (await call(b.url, "GET", "/api/v1/health", key)).status === 401,
        ),
        "b refuses the revoked key",
      );
    } finally {
      await a.close();
      await b.close();
      await fresh.drop();
    }
  });
}
if (sharedSetups.length === 0)
  test.skip("replica tests need DATABASE_URL (and REDIS_URL)", () => undefined);
