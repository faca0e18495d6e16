import test from "ava";
import { customerKey, deployModel } from "./support/inference-fixture.js";
import { eventually, useRoutingGateway } from "./support/routing-gateway.js";
import { call } from "./support/test-app.js";

const rig = useRoutingGateway(test);

test.serial("ab-results: per-arm calls, errors, latency, tokens and a z-test", async (t) => {
  await deployModel(rig.gw.url, rig.gw.adminKey, { name: "ab-good" }, rig.upA.url);
  await deployModel(rig.gw.url, rig.gw.adminKey, { name: "ab-bad" }, rig.upB.url);
  const key = await customerKey(rig.gw.url, rig.gw.adminKey, "enterprise");
  const created = await rig.route(
    {
      match: { model: "ab-test" },
      strategy: "ab",
      targets: [
        { model: "ab-good", weight: 50 },
        { model: "ab-bad", weight: 50 },
      ],
      enabled: true,
    },
    key,
  );
  const id = created.json.id as string;
  const b = rig.upB.requests.length;
  rig.upB.script.setDefault({ status: 500 });
  const statuses: number[] = [];
  try {
    for (let i = 0; i < 40; i++) statuses.push((await rig.chat(key, "ab-test")).status);
  } finally {
    rig.upB.script.setDefault({});
  }
  const toBad = rig.upB.requests.length - b;
  const results = await eventually(
    async () => (await call(rig.gw.url, "GET", `/api/v1/routes/${id}/ab-results`, key)).json,
    (json) => json.calls === 40,
  );
  t.is(results.calls, 40);
  const arms = results.arms as {
    model: string;
    calls: number;
    errors: number;
    error_rate: number;
    latency_ms: { p50: number | null; p95: number | null };
    tokens: number;
  }[];
  t.deepEqual(
    arms.map((a) => a.model),
    ["ab-good", "ab-bad"],
  );
  const [good, bad] = arms;
  t.is((good?.calls ?? 0) + (bad?.calls ?? 0), 40);
  t.is(good?.errors, 0);
  t.is(bad?.calls, statuses.filter((s) => s !== 200).length);
  t.true(toBad >= (bad?.calls ?? 0), "the bad arm's calls reached its upstream");
  t.is(bad?.errors, bad?.calls);
  t.true((good?.tokens ?? 0) > 0);
  t.not(good?.latency_ms.p50, null);
  const analysis = results.analysis as { test: string; p_value: number; arms: string[] };
  t.is(analysis.test, "two_proportion_z");
  t.deepEqual(analysis.arms, ["ab-good", "ab-bad"]);
  t.true(analysis.p_value >= 0 && analysis.p_value <= 1);
  const other = await customerKey(rig.gw.url, rig.gw.adminKey, "free");
  t.is((await call(rig.gw.url, "GET", `/api/v1/routes/${id}/ab-results`, other)).status, 404);
});
