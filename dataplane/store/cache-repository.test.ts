import test from "ava";
import { storeBackends, type Backend } from "../../test/support/databases.js";
import { migrate } from "./migrate.js";
import { openPglite } from "./pglite-database.js";
import type { CacheEntry } from "./cache-entry-rows.js";
import { CacheRepository } from "./cache-repository.js";
import { unitVector } from "../cache/embedder.js";

const now = new Date("2026-11-23T12:00:00Z");
const later = new Date(now.getTime() + 3_600_000);

function entry(customerId: string, keyHash: string, embedding: number[] | null): CacheEntry {
  return {
    customerId,
    keyHash,
    scopeHash: "scope-1",
    model: "m1",
    modelVersion: "1",
    response: { choices: [{ message: { role: "assistant", content: keyHash } }] },
    promptTokens: 10,
    completionTokens: 5,
    costUsd: 0.001,
    embeddingModel: embedding ? "embed" : null,
    embedding: embedding ? unitVector(embedding) : null,
    expiresAt: later,
  };
}

const backends: (Backend & { label: string })[] = [
  ...storeBackends().map((b) => ({ ...b, label: b.name as string })),
  {
    label: "pglite without pgvector",
    name: "pglite",
    async open() {
      const db = await openPglite(undefined, { vector: false });
      return { db, url: undefined, drop: () => db.close() };
    },
  },
];

for (const backend of backends) {
  const label = backend.label;

  test(`cache store on ${label}: exact and nearest lookups stay within one customer`, async (t) => {
    const store = await backend.open();
    try {
      await migrate(store.db);
      const repo = new CacheRepository(store.db);
      const kind = await repo.prepareVectors();
      // PGlite ships pgvector; the Debian Postgres here does not (production services do).
      t.is(kind, label === "pglite" ? "pgvector_hnsw" : "exact_scan");
      await repo.put(entry("alice", "k1", [1, 0, 0, 0]));
      await repo.put(entry("alice", "k2", [0, 1, 0, 0]));
      await repo.put(entry("bob", "k3", [1, 0.01, 0, 0]));

      t.is((await repo.exact("alice", "k1", now))?.response.choices !== undefined, true);
      t.is(await repo.exact("bob", "k1", now), undefined, "another customer's key never matches");
      t.is(await repo.exact("alice", "k1", new Date(later.getTime() + 1)), undefined, "expired");

      const near = await repo.nearest(
        "alice",
        "scope-1",
        "embed",
        unitVector([0.9, 0.1, 0, 0]),
        now,
      );
      t.is(near?.keyHash, "k1");
      t.true((near?.similarity ?? 0) > 0.99);
      const bobNear = await repo.nearest("bob", "scope-1", "embed", unitVector([0, 1, 0, 0]), now);
      t.is(bobNear?.keyHash, "k3", "bob only sees his own entry, however far");
      t.is(
        await repo.nearest("alice", "other-scope", "embed", unitVector([1, 0, 0, 0]), now),
        undefined,
      );
      t.is(
        await repo.nearest("alice", "scope-1", "embed", unitVector([1, 0, 0]), now),
        undefined,
        "other dimensions",
      );

      await repo.recordHit("alice", "k1", now);
      const page = await repo.list("alice", { limit: 1, offset: 0, now });
      t.is(page.length, 2, "limit + 1 rows tell there is more");
      const all = await repo.list("alice", { limit: 10, offset: 0, now });
      t.deepEqual(all.map((e) => e.keyHash).sort(), ["k1", "k2"]);
      t.is(all.find((e) => e.keyHash === "k1")?.hits, 1);

      t.is(
        await repo.invalidate("bob", { keyHash: "k1" }),
        0,
        "bob cannot invalidate alice's entry",
      );
      t.is(await repo.invalidate("alice", { keyHash: "k1" }), 1);
      t.is(await repo.invalidate("alice", { model: "m1" }), 1);
      t.is(await repo.flush("bob"), 1);
      t.is(await repo.deleteExpired(now, 100), 0);
    } finally {
      await store.drop();
    }
  });
}
