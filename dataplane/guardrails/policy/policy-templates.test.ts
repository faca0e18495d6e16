import test from "ava";
import { PII_ENTITIES } from "../pii/entities.js";
import { compileRule } from "../rules/compile-rule.js";
import { applyTemplate } from "./apply-template.js";
import { mergePolicy } from "./merge-policy.js";
import { defaultPolicy } from "./policy-schema.js";
import { applyTemplateRequestSchema, listTemplates, TEMPLATE_NAMES } from "./policy-templates.js";

test("at least HIPAA, PCI DSS, GDPR and SOC 2 are listed, each named and described", (t) => {
  const templates = listTemplates();
  t.deepEqual(
    templates.map((x) => x.name),
    ["hipaa", "pci_dss", "gdpr", "soc2"],
  );
  for (const template of templates) {
    t.true(template.title.length > 0);
    t.true(template.description.length > 40);
  }
  t.true(applyTemplateRequestSchema.safeParse({ template: "gdpr" }).success);
  t.false(applyTemplateRequestSchema.safeParse({ template: "iso27001" }).success);
});

test("HIPAA: every PII type redacted, SSN and driver licence blocked, restricted floor", (t) => {
  const policy = applyTemplate(defaultPolicy(), "hipaa");
  for (const entity of PII_ENTITIES)
    t.is(
      policy.pii.entities[entity],
      entity === "US_SSN" || entity === "US_DRIVER_LICENSE" ? "block" : "redact",
    );
  t.is(policy.classification.pii_floor, "restricted");
  t.false(policy.pii.restore_in_response);
});

test("PCI DSS blocks cards and IBANs", (t) => {
  const policy = applyTemplate(defaultPolicy(), "pci_dss");
  t.is(policy.pii.entities.CREDIT_CARD, "block");
  t.is(policy.pii.entities.IBAN_CODE, "block");
  t.is(policy.pii.action, "redact", "other PII keeps the customer's action");
});

test("GDPR redacts personal data and restores it in the answer", (t) => {
  const policy = applyTemplate(defaultPolicy(), "gdpr");
  for (const entity of [
    "PERSON",
    "EMAIL_ADDRESS",
    "PHONE_NUMBER",
    "STREET_ADDRESS",
    "IP_ADDRESS",
  ] as const)
    t.is(policy.pii.entities[entity], "redact");
  t.true(policy.pii.restore_in_response);
});

test("SOC 2 blocks secrets and injection at a stricter threshold", (t) => {
  const policy = applyTemplate(defaultPolicy(), "soc2");
  t.is(policy.pii.entities.SECRET, "block");
  t.is(policy.injection.threshold, 0.35);
  t.is(policy.injection.action, "block");
  t.is(policy.fail_mode, "closed");
});

test("a template only tightens: stricter settings already in place are kept", (t) => {
  const strict = mergePolicy(defaultPolicy(), {
    injection: { threshold: 0.2 },
    pii: { entities: { PERSON: "block" } },
    classification: { pii_floor: "restricted" },
  });
  const afterGdpr = applyTemplate(strict, "gdpr");
  t.is(afterGdpr.pii.entities.PERSON, "block", "GDPR's redact does not weaken block");
  t.is(afterGdpr.classification.pii_floor, "restricted");
  const afterSoc2 = applyTemplate(strict, "soc2");
  t.is(afterSoc2.injection.threshold, 0.2, "the lower threshold stays");
  const loose = mergePolicy(defaultPolicy(), { pii: { enabled: false }, fail_mode: "open" });
  const tightened = applyTemplate(loose, "hipaa");
  t.true(tightened.pii.enabled);
  t.is(tightened.fail_mode, "closed");
  const both = applyTemplate(applyTemplate(defaultPolicy(), "hipaa"), "pci_dss");
  t.is(both.pii.entities.US_SSN, "block");
  t.is(both.pii.entities.CREDIT_CARD, "block");
  t.is(both.classification.pii_floor, "restricted");
});

test("suggested template rules compile and do what they say", (t) => {
  const rules = listTemplates().flatMap((x) => x.rules.map((r) => compileRule(r)));
  t.true(rules.length >= 2);
  const mrn = rules.find((r) => r.definition.name === "hipaa-medical-record-number");
  t.is(mrn?.evaluate("Patient MRN: 00123456 was admitted").verdict.action, "block");
  t.is(mrn?.evaluate("the patient was admitted").verdict.action, "allow");
  const cvv = rules.find((r) => r.definition.name === "pci-card-verification-code");
  t.is(cvv?.evaluate("card ok, CVV 123").verdict.action, "block");
  t.is(TEMPLATE_NAMES.length, 4);
});
