import test, { type ExecutionContext } from "ava";
import { REDIS_URL } from "../../test/support/databases.js";
import { manualClock } from "../core/clock.js";
import { GatewayError } from "../core/errors.js";
import { connectRedis } from "../store/redis-connection.js";
import type { BudgetLedger, BudgetLedgerTiming } from "./budget-ledger.js";
import { MemoryBudgetLedger } from "./memory-budget-ledger.js";
import { RedisBudgetLedger } from "./redis-budget-ledger.js";
import { deleteKeysUnder, uniquePrefix } from "./testing/limiter-backends.js";

const T0 = Date.UTC(2026, 10, 22, 12);
type Clock = ReturnType<typeof manualClock>;

interface LedgerBackend {
  name: string;
  open(
    clock: Clock,
    timing: BudgetLedgerTiming,
  ): Promise<{ ledger: BudgetLedger; close(): Promise<void> }>;
}

const backends: LedgerBackend[] = [
  {
    name: "memory",
    open: async (clock, timing) => ({
      ledger: new MemoryBudgetLedger(clock, timing),
      close: async () => undefined,
    }),
  },
];
if (REDIS_URL) {
  const url = REDIS_URL;
  backends.push({
    name: "redis",
    async open(clock, timing) {
      const connection = await connectRedis(url);
      const keyPrefix = uniquePrefix("budget");
      const ledger = new RedisBudgetLedger(connection, { clock, keyPrefix, ...timing });
      return {
        ledger,
        async close() {
          await deleteKeysUnder(connection, keyPrefix);
          await connection.close();
        },
      };
    },
  });
}

type Body = (t: ExecutionContext, ledger: BudgetLedger, clock: Clock) => Promise<void>;

for (const backend of backends) {
  const scenario = (title: string, body: Body, timing: BudgetLedgerTiming = {}) =>
    test(`${backend.name}: ${title}`, async (t) => {
      const clock = manualClock(T0);
      const opened = await backend.open(clock, timing);
      try {
        await body(t, opened.ledger, clock);
      } finally {
        await opened.close();
      }
    });

  scenario(
    "a hard limit refuses a reservation that does not fit; settling frees the difference",
    async (t, ledger) => {
      const a = await ledger.reserve("c1", "monthly", 0.4, 1);
      t.like(a, { allowed: true, spentUsd: 0, reservedUsd: 0.4 });
      t.like(await ledger.reserve("c1", "monthly", 0.4, 1), { allowed: true, reservedUsd: 0.8 });
      t.deepEqual(await ledger.reserve("c1", "monthly", 0.3, 1), {
        allowed: false,
        reservationId: null,
        spentUsd: 0,
        reservedUsd: 0.8,
      });
      await ledger.settle(a.reservationId!, 0.1);
      t.deepEqual(await ledger.spend("c1", "monthly"), {
        period: "2026-11",
        spentUsd: 0.1,
        reservedUsd: 0.4,
      });
      t.like(await ledger.reserve("c1", "monthly", 0.3, 1), {
        allowed: true,
        spentUsd: 0.1,
        reservedUsd: 0.7,
      });
    },
  );

  scenario(
    "amounts are exact: ten reservations of $0.10 fill a $1.00 budget exactly",
    async (t, ledger) => {
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) {
        const r = await ledger.reserve("c1", "monthly", 0.1, 1);
        t.true(r.allowed);
        ids.push(r.reservationId!);
      }
      t.false((await ledger.reserve("c1", "monthly", 0.000001, 1)).allowed);
      for (const id of ids) await ledger.settle(id, 0.1);
      t.deepEqual(await ledger.spend("c1", "monthly"), {
        period: "2026-11",
        spentUsd: 1,
        reservedUsd: 0,
      });
    },
  );

  scenario("settling the same reservation twice charges once", async (t, ledger) => {
    const r = await ledger.reserve("c1", "monthly", 0.5, null);
    await ledger.settle(r.reservationId!, 0.25);
    await ledger.settle(r.reservationId!, 0.25);
    t.like(await ledger.spend("c1", "monthly"), { spentUsd: 0.25, reservedUsd: 0 });
  });

  scenario(
    "an unsettled reservation expires and releases its budget; a late settle still records the cost",
    async (t, ledger, clock) => {
      const r = await ledger.reserve("c1", "monthly", 0.9, 1);
      t.false((await ledger.reserve("c1", "monthly", 0.2, 1)).allowed);
      clock.advance(60_001);
      t.like(await ledger.spend("c1", "monthly"), { spentUsd: 0, reservedUsd: 0 });
      t.true((await ledger.reserve("c1", "monthly", 0.2, 1)).allowed);
      await ledger.settle(r.reservationId!, 0.7);
      t.like(await ledger.spend("c1", "monthly"), { spentUsd: 0.7, reservedUsd: 0.2 });
    },
    { reservationTtlMs: 60_000 },
  );

  scenario("without a hard limit everything is admitted and still counted", async (t, ledger) => {
    const r = await ledger.reserve("c1", "monthly", 1_000, null);
    t.like(r, { allowed: true, reservedUsd: 1_000 });
    await ledger.settle(r.reservationId!, 1_200.5);
    t.like(await ledger.spend("c1", "monthly"), { spentUsd: 1_200.5 });
  });

  scenario(
    "periods and customers are separate; a settle lands in the reservation's period",
    async (t, ledger, clock) => {
      const r = await ledger.reserve("c1", "monthly", 0.5, null);
      await ledger.reserve("c2", "monthly", 0.3, null);
      clock.set(Date.UTC(2026, 11, 1, 0, 0, 1)); // December
      t.deepEqual(await ledger.spend("c1", "monthly"), {
        period: "2026-12",
        spentUsd: 0,
        reservedUsd: 0,
      });
      await ledger.settle(r.reservationId!, 0.5);
      t.like(await ledger.spend("c1", "monthly"), { spentUsd: 0 });
      t.like(await ledger.spend("c1", "daily"), { period: "2026-12-01", spentUsd: 0 });
      clock.set(T0);
      t.like(await ledger.spend("c1", "monthly"), {
        period: "2026-11",
        spentUsd: 0.5,
        reservedUsd: 0,
      });
      t.like(await ledger.spend("c2", "monthly"), { spentUsd: 0, reservedUsd: 0.3 });
    },
  );
}

if (REDIS_URL) {
  const url = REDIS_URL;

  test("redis: concurrent reserves through two ledgers (two replicas) never exceed the hard limit", async (t) => {
    const clock = manualClock(T0);
    const keyPrefix = uniquePrefix("budget-replicas");
    const a = await connectRedis(url);
    const b = await connectRedis(url);
    try {
      const ledgers = [
        new RedisBudgetLedger(a, { clock, keyPrefix }),
        new RedisBudgetLedger(b, { clock, keyPrefix }),
      ];
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          ledgers[i % 2]!.reserve("shared", "monthly", 0.03, 1),
        ),
      );
      t.is(results.filter((r) => r.allowed).length, 33);
      t.deepEqual(await ledgers[0]!.spend("shared", "monthly"), {
        period: "2026-11",
        spentUsd: 0,
        reservedUsd: 0.99,
      });
    } finally {
      await deleteKeysUnder(a, keyPrefix);
      await a.close();
      await b.close();
    }
  });

  test("redis: a period's keys expire after the period plus the retention", async (t) => {
    const clock = manualClock(T0);
    const keyPrefix = uniquePrefix("budget-ttl");
    const connection = await connectRedis(url);
    try {
      const ledger = new RedisBudgetLedger(connection, {
        clock,
        keyPrefix,
        retainAfterPeriodMs: 1_000,
      });
      await ledger.reserve("c1", "daily", 0.1, null);
      const ttl = await connection.client.pTTL(`${keyPrefix}{c1:2026-11-22}`);
      t.is(ttl > 12 * 3_600_000 - 5_000 && ttl <= 12 * 3_600_000 + 1_000, true, `ttl ${ttl}`);
    } finally {
      await deleteKeysUnder(connection, keyPrefix);
      await connection.close();
    }
  });

  test("redis: an unreachable store: reserve reports service_unavailable, settle reports without throwing", async (t) => {
    const connection = await connectRedis(url);
    const settleErrors: string[] = [];
    const keyPrefix = uniquePrefix("budget-down");
    const ledger = new RedisBudgetLedger(connection, {
      clock: manualClock(T0),
      keyPrefix,
      onSettleError: (e) => void settleErrors.push(e.code),
    });
    const open = await ledger.reserve("c1", "monthly", 0.1, 1);
    await deleteKeysUnder(connection, keyPrefix);
    await connection.close();
    const err = await t.throwsAsync(ledger.reserve("c1", "monthly", 0.1, 1), {
      instanceOf: GatewayError,
    });
    t.is(err?.code, "service_unavailable");
    await t.notThrowsAsync(ledger.settle(open.reservationId!, 0.1)); // e.g. at the end of a stream
    t.deepEqual(settleErrors, ["service_unavailable"]);
  });
} else {
  test.skip("redis budget ledger: replicas, TTLs, outage (set REDIS_URL to run)", () => undefined);
}
