/**
 * Compliance policy templates (GET /api/v1/gateway/policies/templates, POST .../apply with
 * `{ "template": name }`). Each is data: a deep-partial policy plus suggested custom rules. Applying
 * one only tightens (apply-template.ts). Documented in docs/guardrail-policy.md.
 */
import { z } from "zod";
import { PII_ENTITIES } from "../pii/entities.js";
import { ruleDefinitionSchema, type RuleDefinition } from "../rules/rule-definition.js";
import { policyPatchSchema, type PolicyPatch } from "./policy-schema.js";

export const TEMPLATE_NAMES = ["hipaa", "pci_dss", "gdpr", "soc2"] as const;
export type TemplateName = (typeof TEMPLATE_NAMES)[number];

/** The body of POST /api/v1/gateway/policies/apply. */
export const applyTemplateRequestSchema = z.strictObject({ template: z.enum(TEMPLATE_NAMES) });

export interface PolicyTemplate {
  name: TemplateName;
  title: string;
  description: string;
  policy: PolicyPatch;
  /** Custom rules the template suggests; the gateway may create them when the template is applied. */
  rules: RuleDefinition[];
}

const TEMPLATES: Record<TemplateName, PolicyTemplate> = {
  hipaa: {
    name: "hipaa",
    title: "HIPAA",
    description:
      "US health data: every PII type is redacted before the model sees it, government and medical " +
      "identifiers block the call, originals are never restored, any PII makes the call restricted, " +
      "and a failing detector blocks.",
    policy: policyPatchSchema.parse({
      pii: {
        enabled: true,
        action: "redact",
        entities: {
          ...Object.fromEntries(PII_ENTITIES.map((entity) => [entity, "redact"])),
          US_SSN: "block",
          US_DRIVER_LICENSE: "block",
        },
        restore_in_response: false,
      },
      classification: { pii_floor: "restricted" },
      fail_mode: "closed",
    }),
    rules: [
      ruleDefinitionSchema.parse({
        name: "hipaa-medical-record-number",
        kind: "regex",
        pattern:
          "\\b(?:MRN|medical record(?: number| no\\.?)?|patient id)[:#\\s]{0,3}[A-Z0-9-]{6,14}\\b",
        flags: "i",
        action: "block",
        applies_to: "both",
        description: "Medical record numbers and patient ids written after their label.",
      }),
    ],
  },
  pci_dss: {
    name: "pci_dss",
    title: "PCI DSS",
    description:
      "Payment data: card numbers (Luhn-checked) and IBANs block the call in both directions; card " +
      "verification codes written after their label block too. Other PII is handled as before.",
    policy: policyPatchSchema.parse({
      pii: { enabled: true, entities: { CREDIT_CARD: "block", IBAN_CODE: "block" } },
      fail_mode: "closed",
    }),
    rules: [
      ruleDefinitionSchema.parse({
        name: "pci-card-verification-code",
        kind: "regex",
        pattern: "\\b(?:cvv2?|cvc2?|cid|security code)[:=#\\s]{0,3}\\d{3,4}\\b",
        flags: "i",
        action: "block",
        applies_to: "both",
        description: "Card verification codes (CVV/CVC) written after their label.",
      }),
    ],
  },
  gdpr: {
    name: "gdpr",
    title: "GDPR",
    description:
      "Personal data minimisation: names, e-mail addresses, phone numbers, street addresses and IP " +
      "addresses are pseudonymised before the model sees them and restored in the answer for the " +
      "caller (reversible pseudonymisation, in memory for one request only); nothing is logged.",
    policy: policyPatchSchema.parse({
      pii: {
        enabled: true,
        action: "redact",
        entities: {
          PERSON: "redact",
          EMAIL_ADDRESS: "redact",
          PHONE_NUMBER: "redact",
          STREET_ADDRESS: "redact",
          IP_ADDRESS: "redact",
        },
        restore_in_response: true,
      },
    }),
    rules: [],
  },
  soc2: {
    name: "soc2",
    title: "SOC 2",
    description:
      "Security controls: secrets and credentials block the call, prompt injection blocks at a " +
      "stricter threshold (0.35), content safety blocks, and a failing detector blocks.",
    policy: policyPatchSchema.parse({
      pii: { enabled: true, entities: { SECRET: "block" } },
      injection: { enabled: true, threshold: 0.35, action: "block" },
      safety: { enabled: true, action: "block" },
      fail_mode: "closed",
    }),
    rules: [],
  },
};

export function listTemplates(): PolicyTemplate[] {
  return TEMPLATE_NAMES.map((name) => TEMPLATES[name]);
}

export function getTemplate(name: TemplateName): PolicyTemplate {
  return TEMPLATES[name];
}
