// Structural invariants of crds/*.yaml that kubectl users and the operator rely on: group,
// version, scope, names, the status subresource, printer columns, and the exact spec and
// status field names the operator (operator/**) reads and writes.
import test from "ava";
import { join } from "node:path";
import { loadCrds, type LoadedCrd } from "./support/k8s-schema-crd.js";
import type { OpenApiSchema } from "./support/k8s-schema.js";

const crds = loadCrds(join(import.meta.dirname, "..", "crds"));

const CONTRACT: {
  [kind: string]: {
    plural: string;
    short: string;
    spec: string[];
    status: string[];
    required: string[];
  };
} = {
  Model: {
    plural: "models",
    short: "evm",
    spec: [
      "deletionPolicy",
      "name",
      "version",
      "architecture",
      "modality",
      "engine",
      "image",
      "aliases",
      "requiredTier",
      "pricing",
      "contextWindow",
      "engineArtifacts",
    ],
    status: ["modelId", "phase", "conditions", "observedGeneration"],
    required: ["name", "version", "engine"],
  },
  Deployment: {
    plural: "deployments",
    short: "evd",
    spec: [
      "modelRef",
      "scaling",
      "resources",
      "gpu",
      "engineArgs",
      "modelCache",
      "shmSize",
      "env",
      "envFrom",
      "nodeSelector",
      "tolerations",
      "affinity",
      "priorityClassName",
      "imagePullSecrets",
      "podTemplate",
      "port",
      "provisioningTimeoutSeconds",
    ],
    status: [
      "deploymentId",
      "phase",
      "endpointUrl",
      "failedGeneration",
      "reason",
      "conditions",
      "observedGeneration",
    ],
    required: ["modelRef"],
  },
  Route: {
    plural: "routes",
    short: "evr",
    spec: ["deletionPolicy", "customerId", "name", "match", "strategy", "targets", "enabled"],
    status: ["routeId", "synced", "conditions", "observedGeneration"],
    required: ["customerId", "match", "targets"],
  },
  GuardrailRule: {
    plural: "guardrailrules",
    short: "evg",
    spec: [
      "deletionPolicy",
      "customerId",
      "name",
      "kind",
      "pattern",
      "keywords",
      "entities",
      "maxTokens",
      "action",
      "appliesTo",
      "enabled",
    ],
    status: ["ruleId", "synced", "conditions", "observedGeneration"],
    required: ["customerId", "name", "kind"],
  },
  LegalHold: {
    plural: "legalholds",
    short: "evh",
    spec: ["deletionPolicy", "customerId", "from", "to", "reason", "scope"],
    status: ["holdId", "active", "conditions", "observedGeneration"],
    required: ["customerId", "from", "to", "reason"],
  },
};

function root(crd: LoadedCrd): OpenApiSchema & {
  properties: { [k: string]: OpenApiSchema & { properties: object; required?: string[] } };
} {
  return crd.doc.spec.versions[0]?.schema.openAPIV3Schema as never;
}

for (const crd of crds) {
  const { kind } = crd.doc.spec.names;
  const contract = CONTRACT[kind];

  test(`${kind}: group, single served storage version, namespaced, names, category`, (t) => {
    if (!contract) return t.fail(`no contract for ${kind}`);
    t.is(crd.doc.apiVersion, "apiextensions.k8s.io/v1");
    t.is(crd.doc.spec.group, "evident.dev");
    t.is(crd.doc.metadata.name, `${contract.plural}.evident.dev`);
    t.is(crd.doc.spec.scope, "Namespaced");
    t.is(crd.doc.spec.names.plural, contract.plural);
    t.deepEqual(crd.doc.spec.names.shortNames, [contract.short]);
    t.deepEqual(crd.doc.spec.names.categories, ["evident"]);
    t.deepEqual(
      crd.doc.spec.versions.map((v) => [v.name, v.served, v.storage]),
      [["v1alpha1", true, true]],
    );
  });

  test(`${kind}: status subresource and printer columns`, (t) => {
    const version = crd.doc.spec.versions[0];
    t.deepEqual(version?.subresources, { status: {} });
    const columns = version?.additionalPrinterColumns ?? [];
    t.deepEqual(columns.at(-1), {
      name: "Age",
      type: "date",
      jsonPath: ".metadata.creationTimestamp",
    });
    const paths = columns.map((c) => c.jsonPath);
    t.true(
      paths.some((p) => p.startsWith(".status.")),
      "a column shows the status",
    );
    if (kind === "Deployment") t.true(paths.includes(".status.endpointUrl"), "Endpoint column");
    for (const p of paths.filter((p) => p.startsWith(".spec.") || p.startsWith(".status."))) {
      const [section, field] = p.split(".").slice(1);
      const props = root(crd).properties[section as string]?.properties as { [k: string]: unknown };
      t.truthy(
        props[(field ?? "").split("[")[0] as string],
        `column path ${p} exists in the schema`,
      );
    }
  });

  test(`${kind}: spec and status field names are the contract the operator uses`, (t) => {
    if (!contract) return t.fail(`no contract for ${kind}`);
    const { spec, status } = root(crd).properties;
    t.deepEqual(Object.keys(spec?.properties ?? {}), contract.spec);
    t.deepEqual(spec?.required, contract.required);
    t.deepEqual(Object.keys(status?.properties ?? {}), contract.status);
    t.deepEqual(root(crd).required, ["spec"]);
  });

  test(`${kind}: the schema is structural (every node typed, no $ref, no unknown-field holes)`, (t) => {
    const problems: string[] = [];
    const visit = (node: OpenApiSchema, path: string): void => {
      if ("$ref" in node) problems.push(`${path}: $ref`);
      const intOrString = node["x-kubernetes-int-or-string"] === true;
      if (node.type === undefined && !intOrString) problems.push(`${path}: no type`);
      if (
        node.type === "object" &&
        node.properties === undefined &&
        node.additionalProperties === undefined
      ) {
        if (node["x-kubernetes-preserve-unknown-fields"] !== true && path !== ".metadata") {
          problems.push(`${path}: object without fields would be pruned empty`);
        }
      }
      for (const [k, v] of Object.entries(
        (node.properties ?? {}) as { [k: string]: OpenApiSchema },
      ))
        visit(v, `${path}.${k}`);
      if (typeof node.items === "object") visit(node.items as OpenApiSchema, `${path}[]`);
      if (typeof node.additionalProperties === "object")
        visit(node.additionalProperties as OpenApiSchema, `${path}{}`);
    };
    visit(root(crd), "");
    t.deepEqual(problems, []);
  });
}
