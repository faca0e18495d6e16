import test from "ava";
import { Counter, Histogram, Registry } from "prom-client";
import { seededRandom } from "../../test/support/seeded-random.js";
import { CounterFamily, HistogramFamily } from "./series-families.js";

type Name = "route" | "method" | "status";
const labelNames = ["route", "method", "status"] as const;
const buckets = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
];

/** The same counter and histogram twice: plain prom-client, and through families. */
function pair(capacity?: number) {
  const plain = new Registry();
  const viaFamilies = new Registry();
  const config = { name: "t_requests_total", help: "requests", labelNames };
  const histogramConfig = { name: "t_seconds", help: "latency", labelNames, buckets };
  return {
    plain,
    viaFamilies,
    counter: new Counter<Name>({ ...config, registers: [plain] }),
    histogram: new Histogram<Name>({ ...histogramConfig, registers: [plain] }),
    counterFamily: new CounterFamily<Name>({ ...config, registers: [viaFamilies], capacity }),
    histogramFamily: new HistogramFamily<Name>({
      ...histogramConfig,
      registers: [viaFamilies],
      capacity,
    }),
  };
}

/** Values a call may record: bucket bounds exactly, just around them, above them all, zero. */
function valueFrom(random: () => number): number {
  const pick = random();
  const bound = buckets[Math.floor(random() * buckets.length)] ?? 1;
  if (pick < 0.3) return bound;
  if (pick < 0.45) return bound * (1 + 1e-12);
  if (pick < 0.5) return 0;
  if (pick < 0.55) return 31 + random() * 100;
  return random() * random() * 3;
}

function drive(p: ReturnType<typeof pair>, random: () => number, calls: number): void {
  const routes = ["/v1/chat/completions", "/v1/embeddings", "unmatched", "/api/v1/a", "/api/v1/b"];
  const methods = ["GET", "POST", "DELETE"];
  const statuses = ["200", "400", "401", "404", "429", "500", "503"];
  const of = (list: string[]) => list[Math.floor(random() * list.length)] ?? "";
  for (let i = 0; i < calls; i++) {
    const route = of(routes);
    const method = of(methods);
    const status = of(statuses);
    const value = valueFrom(random);
    const increment = random() < 0.2 ? random() * 10 : 1;
    p.counter.inc({ route, method, status }, increment);
    p.counterFamily.series(route, method, status).inc(increment);
    p.histogram.observe({ route, method, status }, value);
    p.histogramFamily.series(route, method, status).observe(value);
  }
}

test("a scrape reads the same text through families as through prom-client, during and after traffic", async (t) => {
  for (const seed of [1, 2, 3]) {
    const p = pair();
    const random = seededRandom(seed);
    t.is(await p.viaFamilies.metrics(), await p.plain.metrics(), "before any call");
    for (let round = 0; round < 6; round++) {
      drive(p, random, 400);
      t.is(await p.viaFamilies.metrics(), await p.plain.metrics(), `seed ${seed} round ${round}`);
    }
    t.deepEqual(await p.counterFamily.get(), await p.counter.get());
    t.deepEqual(await p.histogramFamily.get(), await p.histogram.get());
  }
});

test("label sets past the family's capacity are still counted, in the same order", async (t) => {
  const p = pair(3);
  const random = seededRandom(7);
  for (let round = 0; round < 4; round++) {
    drive(p, random, 300);
    t.is(await p.viaFamilies.metrics(), await p.plain.metrics(), `round ${round}`);
  }
  t.regex(await p.viaFamilies.metrics(), /t_requests_total\{route="[^"]+",method="[^"]+",status/);
});

test("a reset of the registry starts every series again, as with prom-client", async (t) => {
  const p = pair();
  const random = seededRandom(11);
  drive(p, random, 200);
  p.plain.resetMetrics();
  p.viaFamilies.resetMetrics();
  t.is(await p.viaFamilies.metrics(), await p.plain.metrics(), "right after the reset");
  drive(p, random, 200);
  t.is(await p.viaFamilies.metrics(), await p.plain.metrics(), "after more calls");
});

test("values prom-client refuses are refused the same way; NaN is counted as it counts it", async (t) => {
  const p = pair();
  const labels = { route: "/r", method: "GET", status: "200" } as const;
  p.counter.inc(labels, 1);
  const series = p.counterFamily.series("/r", "GET", "200");
  series.inc(1);
  const histogramSeries = p.histogramFamily.series("/r", "GET", "200");
  p.histogram.observe(labels, 0.2);
  histogramSeries.observe(0.2);

  const refusedPlain = t.throws(() => p.counter.inc(labels, -1));
  const refused = t.throws(() => series.inc(-1));
  t.is(refused?.message, refusedPlain?.message);
  t.is(t.throws(() => series.inc(Infinity))?.message, "Value is not a valid number: Infinity");
  t.throws(() => p.counter.inc(labels, Infinity));
  const observedPlain = t.throws(() => p.histogram.observe(labels, Number.NaN));
  t.is(t.throws(() => histogramSeries.observe(Number.NaN))?.message, observedPlain?.message);
  t.throws(() => p.histogram.observe(labels, -Infinity));
  t.throws(() => histogramSeries.observe(-Infinity));

  p.counter.inc(labels, Number.NaN);
  series.inc(Number.NaN);
  series.inc(2);
  p.counter.inc(labels, 2);
  t.is(await p.viaFamilies.metrics(), await p.plain.metrics());
  t.regex(
    await p.viaFamilies.metrics(),
    /t_requests_total\{route="\/r",method="GET",status="200"\} Nan/,
  );
});

test("a histogram without labels and a counter zeroed before use read as prom-client's", async (t) => {
  const plain = new Registry();
  const viaFamilies = new Registry();
  const lagConfig = { name: "t_lag_seconds", help: "lag", buckets: [0.001, 0.01, 0.1, 1] };
  const codeConfig = { name: "t_refusals_total", help: "refusals", labelNames: ["code"] as const };
  const lag = new Histogram({ ...lagConfig, registers: [plain] });
  const codes = new Counter({ ...codeConfig, registers: [plain] });
  const lagFamily = new HistogramFamily({ ...lagConfig, labelNames: [], registers: [viaFamilies] });
  const codeFamily = new CounterFamily({ ...codeConfig, registers: [viaFamilies] });
  for (const code of ["a", "b"]) {
    codes.inc({ code }, 0);
    codeFamily.series(code).inc(0);
  }
  t.is(await viaFamilies.metrics(), await plain.metrics());
  const lagSeries = lagFamily.series();
  for (const seconds of [0.0004, 0.001, 0.05, 2, 0.01, 1]) {
    lag.observe(seconds);
    lagSeries.observe(seconds);
    codes.inc({ code: "b" });
    codeFamily.series("b").inc();
    t.is(await viaFamilies.metrics(), await plain.metrics(), `after ${seconds}`);
  }
  t.regex(await viaFamilies.metrics(), /t_lag_seconds_bucket\{le="1"\} 5\n/);
  t.regex(await viaFamilies.metrics(), /t_refusals_total\{code="a"\} 0\n/);
});
