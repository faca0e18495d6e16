/**
 * Applying a compliance template only tightens a policy: for every setting the template names, the
 * stricter of the current value and the template's wins, so applying PCI DSS after HIPAA keeps
 * HIPAA's protections. Stricter means: a detector enabled; block over redact over allow (per PII
 * entity, against the entity's effective action); block over flag; the lower threshold; the higher
 * classification floor; fail closed; no content logging. `restore_in_response` is not a protection
 * but a convenience: the template's value is taken as is.
 */
import { classificationRank } from "../../core/identity.js";
import { PII_ENTITIES } from "../pii/entities.js";
import { SAFETY_CATEGORIES } from "../safety/safety-categories.js";
import {
  guardrailPolicySchema,
  type GuardrailPolicy,
  type PiiEntityAction,
} from "./policy-schema.js";
import { getTemplate, type TemplateName } from "./policy-templates.js";

const PII_STRICTNESS: Record<PiiEntityAction, number> = { allow: 0, redact: 1, block: 2 };

function stricterPii<T extends PiiEntityAction>(a: T, b: T | undefined | null): T {
  return b != null && PII_STRICTNESS[b] > PII_STRICTNESS[a] ? b : a;
}

function stricterDetector(a: "block" | "flag", b: "block" | "flag" | undefined): "block" | "flag" {
  return a === "block" || b === "block" ? "block" : "flag";
}

function lower(a: number, b: number | undefined | null): number {
  return b == null ? a : Math.min(a, b);
}

export function applyTemplate(policy: GuardrailPolicy, name: TemplateName): GuardrailPolicy {
  const template = getTemplate(name).policy;
  const pii = template.pii ?? {};
  const injection = template.injection ?? {};
  const safety = template.safety ?? {};

  const piiAction = stricterPii(policy.pii.action, pii.action);
  const entities = { ...policy.pii.entities };
  for (const entity of PII_ENTITIES) {
    const wanted = pii.entities?.[entity];
    if (wanted == null) continue;
    const effective = policy.pii.entities[entity] ?? piiAction;
    entities[entity] = stricterPii<PiiEntityAction>(effective, wanted);
  }

  const safetyThreshold = lower(policy.safety.threshold, safety.threshold);
  const categories = { ...policy.safety.categories };
  for (const category of SAFETY_CATEGORIES) {
    const wanted = safety.categories?.[category];
    if (wanted == null) continue;
    categories[category] = lower(policy.safety.categories[category] ?? safetyThreshold, wanted);
  }

  const floor = template.classification?.pii_floor;
  return guardrailPolicySchema.parse({
    pii: {
      enabled: policy.pii.enabled || pii.enabled === true,
      action: piiAction,
      entities,
      restore_in_response: pii.restore_in_response ?? policy.pii.restore_in_response,
    },
    injection: {
      enabled: policy.injection.enabled || injection.enabled === true,
      threshold: lower(policy.injection.threshold, injection.threshold),
      action: stricterDetector(policy.injection.action, injection.action),
    },
    safety: {
      enabled: policy.safety.enabled || safety.enabled === true,
      threshold: safetyThreshold,
      categories,
      action: stricterDetector(policy.safety.action, safety.action),
    },
    classification: {
      pii_floor:
        floor !== undefined &&
        classificationRank(floor) > classificationRank(policy.classification.pii_floor)
          ? floor
          : policy.classification.pii_floor,
    },
    fail_mode: policy.fail_mode === "closed" || template.fail_mode === "closed" ? "closed" : "open",
    stream_mode:
      policy.stream_mode === "buffered" || template.stream_mode === "buffered"
        ? "buffered"
        : "low_latency",
  });
}
