import test from "ava";
import { manualClock } from "../core/clock.js";
import { RoutingTable, TargetRotation } from "./routing-table.js";
import type { RoutableModel, Target } from "./routing-types.js";
import { TargetHealth } from "./target-health.js";

const target = (id: string): Target => ({
  id,
  kind: "deployment",
  baseUrl: `http://${id}/v1`,
  upstreamModel: "m",
  credential: undefined,
});
const model = (name: string, targets: Target[], aliases: string[] = []): RoutableModel => ({
  name,
  model: undefined,
  aliases,
  requiredTier: "free",
  pricing: { inputPer1k: 0, outputPer1k: 0 },
  modality: "text",
  contextWindow: null,
  targets,
  createdAt: new Date(0),
});

test("names and aliases resolve; a customer's backends join a global model for that customer only", (t) => {
  const table = new RoutingTable(
    [model("llama", [target("d1")], ["fast"])],
    new Map([["cus_a", [model("llama", [target("b1")]), model("own", [target("b2")])]]]),
  );
  t.is(table.resolve("fast", "cus_x")?.name, "llama");
  t.deepEqual(
    table.resolve("llama", "cus_a")?.targets.map((x) => x.id),
    ["d1", "b1"],
  );
  t.deepEqual(
    table.resolve("llama", "cus_x")?.targets.map((x) => x.id),
    ["d1"],
  );
  t.is(table.resolve("own", "cus_x"), undefined);
  t.deepEqual(
    table
      .list("cus_a")
      .map((m) => m.name)
      .sort(),
    ["llama", "own"],
  );
});

test("decisions rotate among healthy targets and put cooling ones last", (t) => {
  const clock = manualClock(1_000);
  const health = new TargetHealth(clock, { failureThreshold: 2, coolDownMs: 500 });
  const m = model("m", [target("a"), target("b"), target("c")]);
  const table = new RoutingTable([m], new Map());
  const firsts = new Set(Array.from({ length: 6 }, () => table.decide(m, health).targets[0]?.id));
  t.deepEqual([...firsts].sort(), ["a", "b", "c"]);
  health.started("b");
  health.failed("b");
  health.started("b");
  health.failed("b");
  for (let i = 0; i < 6; i++) t.is(table.decide(m, health).targets.at(-1)?.id, "b");
  clock.advance(501);
  t.true(health.isHealthy("b"), "cool-down ends");
  health.started("b");
  health.succeeded("b");
  t.true(health.isHealthy("b"));
});

test("a model's rotation outlives a rebuild of the table and is not moved by other models' calls", (t) => {
  const health = new TargetHealth(manualClock(1_000));
  const m = model("m", [target("a"), target("b"), target("c")]);
  const other = model("other", [target("x"), target("y")]);
  const rotation = new TargetRotation();
  const first = new RoutingTable([m, other], new Map(), new Map(), rotation);
  t.is(first.decide(m, health).targets[0]?.id, "a");
  for (let i = 0; i < 5; i++) first.decide(other, health);
  // A deployment or route change rebuilds the table; the rotation goes on where it was.
  const rebuilt = new RoutingTable([m, other], new Map(), new Map(), rotation);
  t.deepEqual(
    [0, 1, 2].map(() => rebuilt.decide(m, health).targets[0]?.id),
    ["b", "c", "a"],
  );
});

test("a customer's own backends for a shared model's name keep their own rotation, unmoved by other customers' calls", (t) => {
  const health = new TargetHealth(manualClock(1_000));
  const shared = model("llama", [target("d1")]);
  const rotation = new TargetRotation();
  const table = new RoutingTable(
    [shared],
    new Map([
      ["cus_a", [model("llama", [target("b1"), target("b2")])]],
      ["cus_b", [model("solo", [target("s1"), target("s2")])]],
    ]),
    new Map(),
    rotation,
  );
  const firstFor = (name: string, customer: string): string | undefined => {
    const m = table.resolve(name, customer);
    return m ? table.decide(m, health).targets[0]?.id : undefined;
  };
  t.is(firstFor("llama", "cus_a"), "d1");
  // Other customers' calls to the shared model, and another customer's own model, in between.
  for (let i = 0; i < 5; i++) firstFor("llama", "cus_x");
  firstFor("solo", "cus_b");
  t.deepEqual(
    [0, 1, 2].map(() => firstFor("llama", "cus_a")),
    ["b1", "b2", "d1"],
  );
  t.deepEqual([...table.rotationKeys()].sort(), ["cus_a\u0000llama", "cus_b\u0000solo", "llama"]);
  // Retaining what a rebuilt table routes forgets the rest and keeps the customer's place.
  rotation.retain(new Set(["cus_a\u0000llama"]));
  t.is(firstFor("llama", "cus_a"), "b1");
  t.is(firstFor("llama", "cus_x"), "d1");
});
