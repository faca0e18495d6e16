import { readdirSync, readFileSync } from "node:fs";
import test from "ava";
import { parseAllDocuments } from "yaml";
import type { z } from "zod";
import {
  deploymentSpec,
  guardrailRuleSpec,
  legalHoldSpec,
  modelSpec,
  routeSpec,
} from "../operator/crd/specs.js";

/** The operator reads every valid example CR in crds/examples the CRD admits: the two agree on field names. */
const SCHEMAS: Record<string, z.ZodType> = {
  Model: modelSpec,
  Deployment: deploymentSpec,
  Route: routeSpec,
  GuardrailRule: guardrailRuleSpec,
  LegalHold: legalHoldSpec,
};
const dir = new URL("../crds/examples/valid/", import.meta.url);

for (const file of readdirSync(dir).filter((f) => f.endsWith(".yaml"))) {
  test(`the operator reads the spec of crds/examples/valid/${file}`, (t) => {
    const documents = parseAllDocuments(readFileSync(new URL(file, dir), "utf8")).map(
      (d) => d.toJS() as { kind?: string; spec?: unknown },
    );
    t.true(documents.length > 0);
    for (const document of documents) {
      const schema = SCHEMAS[document.kind ?? ""];
      if (!schema) return t.fail(`unknown kind ${document.kind}`);
      const parsed = schema.safeParse(document.spec);
      t.true(parsed.success, parsed.success ? "" : parsed.error.message);
    }
  });
}
