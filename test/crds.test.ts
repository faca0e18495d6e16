// Every example CR in crds/examples is checked against its CRD the way kube-apiserver would
// (structural schema through ajv, then the CEL rules through our small evaluator): valid
// ones are accepted, invalid ones refused with the message their annotation names.
// No API server runs here; test/support/k8s-schema*.ts stand in for its validation.
import test from "ava";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import {
  crdForKind,
  loadCrds,
  validateCustomResource,
  withDefaults,
  type Resource,
} from "./support/k8s-schema-crd.js";

const root = join(import.meta.dirname, "..");
const crds = loadCrds(join(root, "crds"));
const EXPECT = "evident.dev/expect-error";

interface Example {
  file: string;
  old?: Resource;
  obj: Resource;
}

function examples(kind: "valid" | "invalid"): Example[] {
  const dir = join(root, "crds", "examples", kind);
  return readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .map((file) => {
      const docs = parseAllDocuments(readFileSync(join(dir, file), "utf8")).map(
        (d) => d.toJS() as Resource,
      );
      if (docs.length === 1) return { file, obj: docs[0] as Resource };
      if (docs.length === 2) return { file, old: docs[0], obj: docs[1] as Resource };
      throw new Error(`${file}: expected one document, or two (stored object, then update)`);
    });
}

function check(ex: Example): string[] {
  const crd = crdForKind(crds, ex.obj.apiVersion, ex.obj.kind);
  return validateCustomResource(crd, ex.obj, ex.old);
}

function annotation(obj: Resource): string | undefined {
  const meta = obj.metadata as { annotations?: { [key: string]: string } };
  return meta.annotations?.[EXPECT];
}

const KINDS = ["Model", "Deployment", "Route", "GuardrailRule", "LegalHold"];

test("the five CRDs are loaded, one per kind", (t) => {
  t.deepEqual(crds.map((c) => c.doc.spec.names.kind).sort(), [...KINDS].sort());
});

for (const ex of examples("valid")) {
  test(`valid example ${ex.file} is accepted`, (t) => {
    t.deepEqual(check(ex), []);
    t.is(annotation(ex.obj), undefined, "valid examples carry no expected error");
  });
}

for (const ex of examples("invalid")) {
  test(`invalid example ${ex.file} is refused with its expected message`, (t) => {
    const expected = annotation(ex.obj);
    if (expected === undefined) return t.fail(`${ex.file} has no ${EXPECT} annotation`);
    const errors = check(ex);
    t.is(
      errors.length,
      1,
      `each invalid example has exactly one defect: ${JSON.stringify(errors)}`,
    );
    t.true(
      errors.some((e) => e.includes(expected)),
      `expected an error containing ${JSON.stringify(expected)}, got ${JSON.stringify(errors)}`,
    );
  });
}

test("every kind has a valid example and at least four invalid ones", (t) => {
  for (const kind of KINDS) {
    t.true(
      examples("valid").some((e) => e.obj.kind === kind),
      `no valid ${kind}`,
    );
    const invalid = examples("invalid").filter((e) => e.obj.kind === kind).length;
    t.true(invalid >= 4, `only ${invalid} invalid ${kind} examples`);
  }
});

test("an update that changes a Model's name or version is refused; the same object on create is accepted", (t) => {
  for (const ex of examples("invalid").filter((e) => e.old !== undefined)) {
    t.deepEqual(check({ file: ex.file, obj: ex.obj }), [], `${ex.file} as a create`);
    t.not(check(ex).length, 0, `${ex.file} as an update`);
  }
});

test("defaults are applied as the API server stores them", (t) => {
  const deployment = crdForKind(crds, "evident.dev/v1alpha1", "Deployment");
  const stored = withDefaults(deployment, {
    apiVersion: "evident.dev/v1alpha1",
    kind: "Deployment",
    metadata: { name: "d" },
    spec: { modelRef: "m", gpu: { count: 1 } },
  });
  t.deepEqual(stored.spec, {
    modelRef: "m",
    gpu: { count: 1, type: "nvidia.com/gpu" },
    scaling: { minReplicas: 1 },
    shmSize: "1Gi",
    port: 8000,
    provisioningTimeoutSeconds: 900,
  });
  const model = crdForKind(crds, "evident.dev/v1alpha1", "Model");
  const m = withDefaults(model, {
    apiVersion: "evident.dev/v1alpha1",
    kind: "Model",
    metadata: { name: "m" },
    spec: { name: "m", version: "1", engine: "vllm" },
  });
  t.like(m.spec, { modality: "text", requiredTier: "free", deletionPolicy: "Retain" });
});

test("status written by the operator validates against each CRD's status schema", (t) => {
  const condition = {
    type: "Ready",
    status: "True",
    reason: "Running",
    message: "deployment is running",
    lastTransitionTime: "2026-11-22T13:00:00Z",
    observedGeneration: 2,
  };
  const statuses: { [kind: string]: { [key: string]: unknown } } = {
    Model: { modelId: "mdl_1", phase: "active" },
    Deployment: {
      deploymentId: "dep_1",
      phase: "running",
      endpointUrl: "http://x:8000",
      failedGeneration: 1,
      reason: "",
    },
    Route: { routeId: "rt_1", synced: true },
    GuardrailRule: { ruleId: "rule_1", synced: false },
    LegalHold: { holdId: "hold_1", active: true },
  };
  for (const crd of crds) {
    const status = {
      ...statuses[crd.doc.spec.names.kind],
      conditions: [condition],
      observedGeneration: 2,
    };
    const schema = crd.doc.spec.versions[0]?.schema.openAPIV3Schema as {
      properties: { status: { properties: { [key: string]: unknown } } };
    };
    t.deepEqual(
      Object.keys(schema.properties.status.properties).sort(),
      Object.keys(status).sort(),
      `${crd.file} status fields`,
    );
    const spec = examples("valid").find((e) => e.obj.kind === crd.doc.spec.names.kind)?.obj.spec;
    const obj = {
      apiVersion: "evident.dev/v1alpha1",
      kind: crd.doc.spec.names.kind,
      metadata: { name: "s" },
      spec,
      status,
    };
    t.deepEqual(validateCustomResource(crd, obj), [], crd.file);
    const bad = { ...obj, status: { ...status, conditions: [{ ...condition, status: "Yes" }] } };
    t.true(
      validateCustomResource(crd, bad).some((e) =>
        e.includes("status.conditions[0].status: Unsupported value"),
      ),
    );
    const dup = { ...obj, status: { ...status, conditions: [condition, condition] } };
    t.true(
      validateCustomResource(crd, dup).some((e) =>
        e.includes("status.conditions[1]: Duplicate value"),
      ),
    );
  }
});
