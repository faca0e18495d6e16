// The Helm chart's values contract: values.yaml and every charts/evident/ci/*-values.yaml pass
// values.schema.json, and each charts/evident/ci-invalid/*.yaml fails with the error its
// `# expect-error:` comment names. Values are merged onto values.yaml the way Helm coalesces
// them (maps merge, lists replace, null deletes a key) before validation, as `helm install`
// does. Helm itself is not installed here: ajv (draft-07, like Helm) stands in for it.
import test from "ava";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { Ajv } from "ajv";
import { parse } from "yaml";
import type { Values } from "./support/k8s-schema-helm-stub.js";

const chart = join(import.meta.dirname, "..", "charts", "evident");
const schema = JSON.parse(readFileSync(join(chart, "values.schema.json"), "utf8")) as object;
const defaults = parse(readFileSync(join(chart, "values.yaml"), "utf8")) as Values;
const validate = new Ajv({ allErrors: true, strict: true, strictTypes: false }).compile(schema);

function isMap(v: unknown): v is Values {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Helm's coalescing of user values onto the chart's defaults. */
function coalesce(base: Values, user: Values): Values {
  const out: Values = structuredClone(base);
  for (const [k, v] of Object.entries(user)) {
    if (v === null) delete out[k];
    else if (isMap(v) && isMap(out[k])) out[k] = coalesce(out[k], v);
    else out[k] = v;
  }
  return out;
}

function errors(values: Values): string[] {
  if (validate(values)) return [];
  return (validate.errors ?? []).map(
    (e) =>
      `${e.instancePath} ${e.message ?? e.keyword}${e.keyword === "additionalProperties" ? ` (${String(e.params.additionalProperty)})` : ""}`,
  );
}

function files(dir: string): { file: string; text: string }[] {
  return readdirSync(join(chart, dir))
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .map((file) => ({ file, text: readFileSync(join(chart, dir, file), "utf8") }));
}

test("values.yaml passes values.schema.json", (t) => {
  t.deepEqual(errors(structuredClone(defaults)), []);
});

test("the defaults fail closed and keep secrets out of values", (t) => {
  t.like(defaults, {
    envoy: { enabled: false, failureModeAllow: false },
    secrets: { create: false, adminKey: "", databaseUrl: "", redisUrl: "" },
    crds: { install: true },
  });
});

for (const { file, text } of files("ci")) {
  test(`ci/${file} passes the schema`, (t) => {
    t.deepEqual(errors(coalesce(defaults, parse(text) as Values)), []);
  });
}

const invalid = files("ci-invalid");

test("there are at least ten invalid values files", (t) => {
  t.true(invalid.length >= 10, `${invalid.length}`);
});

for (const { file, text } of invalid) {
  test(`ci-invalid/${file} is refused with its expected error`, (t) => {
    const expected = /^# expect-error: (.+)$/m.exec(text)?.[1];
    if (expected === undefined) return t.fail("no # expect-error: comment");
    const found = errors(coalesce(defaults, parse(text) as Values));
    t.true(
      found.some((e) => e.includes(expected)),
      `expected ${JSON.stringify(expected)} in ${JSON.stringify(found)}`,
    );
  });
}

test("null removes a default, as with helm --set key=null", (t) => {
  const merged = coalesce(defaults, {
    dataplane: { podDisruptionBudget: { minAvailable: null, maxUnavailable: 1 } },
  });
  t.deepEqual(lookupPdb(merged), { enabled: true, maxUnavailable: 1 });
  t.deepEqual(errors(merged), []);
});

function lookupPdb(values: Values): unknown {
  return ((values.dataplane as Values).podDisruptionBudget as Values) ?? {};
}
