import test from "ava";
import { UsageMeter, type MeteredCall } from "../dataplane/limits/usage-meter.js";
import { migrate } from "../dataplane/store/migrate.js";
import { openPglite } from "../dataplane/store/pglite-database.js";
import { UsageRepository, type UsageBucket } from "../dataplane/store/usage-repository.js";

const T = Date.parse("2026-11-18T12:00:00.000Z");

function metered(at: number, extra: Partial<MeteredCall> = {}): MeteredCall {
  return {
    at,
    customerId: "c1",
    keyId: "k1",
    model: "m",
    failed: false,
    rateLimited: false,
    promptTokens: 10,
    completionTokens: 5,
    costUsd: 0.25,
    latencyMs: 100,
    ...extra,
  };
}

test("calls are aggregated per minute and key, and flushes add to what is stored", async (t) => {
  const db = await openPglite(undefined);
  try {
    await migrate(db);
    const repo = new UsageRepository(db);
    const meter = new UsageMeter(repo, () => t.fail("no write should fail"));
    meter.record(metered(T + 1_000));
    meter.record(metered(T + 59_000, { failed: true, rateLimited: true, costUsd: 0 }));
    meter.record(metered(T + 61_000));
    await meter.flush();
    meter.record(metered(T + 2_000));
    await meter.flush();
    const rows = await db.query<{
      minute: string;
      requests: number;
      errors: number;
      rate_limited: number;
      prompt_tokens: string;
      cost_usd: number;
    }>(
      `SELECT to_char(bucket_start AT TIME ZONE 'UTC', 'HH24:MI') AS minute, requests, errors,
              rate_limited, prompt_tokens::text, cost_usd
         FROM usage_records ORDER BY bucket_start`,
    );
    t.deepEqual(rows, [
      {
        minute: "12:00",
        requests: 3,
        errors: 1,
        rate_limited: 1,
        prompt_tokens: "30",
        cost_usd: 0.5,
      },
      {
        minute: "12:01",
        requests: 1,
        errors: 0,
        rate_limited: 0,
        prompt_tokens: "10",
        cost_usd: 0.25,
      },
    ]);
    t.is(await repo.spend("c1", new Date(T), new Date(T + 120_000)), 0.75);
  } finally {
    await db.close();
  }
});

test("a failed write keeps the buckets for the next flush (test double: a store that fails once)", async (t) => {
  const written: UsageBucket[][] = [];
  let failNext = true;
  const repo = {
    async add(buckets: readonly UsageBucket[]) {
      if (failNext) {
        failNext = false;
        throw new Error("store unreachable");
      }
      written.push([...buckets]);
    },
  } as unknown as UsageRepository;
  const errors: unknown[] = [];
  const meter = new UsageMeter(repo, (err) => errors.push(err));
  meter.record(metered(T));
  await meter.flush();
  t.is(errors.length, 1);
  meter.record(metered(T + 1));
  await meter.flush();
  t.is(written.length, 1);
  t.is(written[0]?.length, 1);
  t.like(written[0]?.[0], { requests: 2, promptTokens: 20, costUsd: 0.5 });
});
