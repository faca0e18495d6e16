/**
 * The analytics endpoints at volume: rollups seeded as if 1M and 10M calls had been recorded over
 * 30 days (4 customers x 3 models, through the same recorder the gateway uses), then each query
 * timed as the endpoint runs it, for one customer (member) and for all customers (admin). Runs on
 * the in-memory embedded PGlite, or on a fresh Postgres database with BENCH_POSTGRES_URL.
 */
import { AnalyticsService } from "../../dataplane/analytics/analytics-service.js";
import { RollupRecorder } from "../../dataplane/analytics/rollup-recorder.js";
import {
  AnalyticsRepository,
  type RollupScope,
} from "../../dataplane/store/analytics-repository.js";
import type { Database } from "../../dataplane/store/database.js";
import { migrate } from "../../dataplane/store/migrate.js";
import { openPglite } from "../../dataplane/store/pglite-database.js";
import { openPostgres } from "../../dataplane/store/postgres-database.js";
import { percentile } from "../load/percentile.js";
import { createFreshDatabase } from "../processes/fresh-database.js";
import type { Section, SectionReport } from "./section.js";

const DAY = 86_400_000;
const CUSTOMERS = ["cus_1", "cus_2", "cus_3", "cus_4"];
const MODELS = ["model-a", "model-b", "model-c"];
const VOLUMES = [1_000_000, 10_000_000];
const QUERY_RUNS = 5;

interface Opened {
  db: Database;
  close(): Promise<void>;
}

async function openStore(postgresUrl: string | undefined): Promise<Opened> {
  if (!postgresUrl) {
    const db = await openPglite(undefined);
    return { db, close: () => db.close() };
  }
  const fresh = await createFreshDatabase(postgresUrl);
  const db = openPostgres({ connectionString: fresh.url });
  return {
    db,
    async close() {
      await db.close();
      await fresh.drop();
    },
  };
}

/** Records `calls` calls spread evenly over the 30 days before `now`, one day per flush. */
async function seed(recorder: RollupRecorder, calls: number, now: number): Promise<void> {
  const perDay = Math.ceil(calls / 30);
  let n = 0;
  for (let day = 30; day >= 1 && n < calls; day--) {
    const start = now - day * DAY;
    for (let i = 0; i < perDay && n < calls; i++, n++) {
      const r = (n * 2654435761) % 1000;
      recorder.record({
        at: start + Math.floor((i / perDay) * DAY),
        customerId: CUSTOMERS[n % CUSTOMERS.length] as string,
        model: MODELS[(n >> 2) % MODELS.length] as string,
        class: r < 3 ? "failure" : r < 20 ? "refusal" : "success",
        latencyMs: 20 + (r % 400) + (r > 990 ? 2000 : 0),
        promptTokens: 50,
        completionTokens: 120,
        costUsd: 0.0003,
        rateLimited: false,
      });
    }
    await recorder.flush();
  }
}

async function timed(run: () => Promise<unknown>): Promise<{ p50: number; max: number }> {
  const ms: number[] = [];
  for (let i = 0; i < QUERY_RUNS; i++) {
    const t0 = performance.now();
    await run();
    ms.push(performance.now() - t0);
  }
  return { p50: percentile(ms, 50), max: Math.max(...ms) };
}

export const analyticsSection: Section = {
  name: "analytics endpoints over rollups (1M and 10M recorded calls, 30 days)",
  async run({ options, log }): Promise<SectionReport> {
    const table: string[][] = [
      ["calls", "store", "rows (minute/hour)", "seed s", "query", "scope", "p50 ms", "max ms"],
    ];
    const ratios: Record<string, number | null> = {};
    const data: unknown[] = [];
    const store = options.postgresUrl ? "postgres" : "pglite";
    for (const calls of VOLUMES) {
      const opened = await openStore(options.postgresUrl);
      try {
        await migrate(opened.db);
        const repo = new AnalyticsRepository(opened.db);
        const recorder = new RollupRecorder(repo, (err) =>
          log(`rollup write failed: ${String(err)}`),
        );
        const now = Date.now();
        log(`analytics: seeding ${calls} calls on ${store}`);
        const t0 = performance.now();
        await seed(recorder, calls, now);
        const seedSeconds = (performance.now() - t0) / 1000;
        const [rows] = await opened.db.query<{ m: number; h: number }>(
          `SELECT (SELECT count(*) FROM analytics_minute)::int AS m,
                  (SELECT count(*) FROM analytics_hour)::int AS h`,
        );
        const service = new AnalyticsService(repo, { now: () => now });
        const queries: [string, (scope: RollupScope) => Promise<unknown>][] = [
          ["availability (30d, 7d, 24h)", (s) => service.availability(s)],
          ["latency window_hours=720", (s) => service.latency(s, 720)],
          ["latency window_hours=24", (s) => service.latency(s, 24)],
          ["error-budget window_days=30", (s) => service.errorBudget(s, 30)],
          ["timeseries 720 h / 60 min", (s) => service.timeseries(s, 720, 60)],
          ["timeseries 24 h / 5 min", (s) => service.timeseries(s, 24, 5)],
        ];
        for (const [name, query] of queries) {
          for (const [scopeName, scope] of [
            ["member", { customerId: "cus_1" }],
            ["admin (all)", "all"],
          ] as const) {
            const t = await timed(() => query(scope));
            table.push([
              String(calls),
              store,
              `${rows?.m ?? 0}/${rows?.h ?? 0}`,
              seedSeconds.toFixed(1),
              name,
              scopeName,
              t.p50.toFixed(1),
              t.max.toFixed(1),
            ]);
            ratios[`${calls} ${name} ${scopeName} p50 ms`] = t.p50;
            data.push({ calls, store, name, scope: scopeName, ...t, seedSeconds, rows });
          }
        }
      } finally {
        await opened.close();
      }
    }
    return {
      name: this.name,
      table,
      ratios,
      targets: [],
      notes: [
        "Rows, not calls, decide the cost: a 30-day query reads at most 720 hour rows and 120 minute rows per customer and model.",
        "Seeding goes through RollupRecorder (the gateway's write path), one flush per simulated day.",
      ],
      data,
    };
  },
};
