import { guardrailRuleSpec, type GuardrailRuleSpec } from "../crd/specs.js";
import { GUARDRAIL_RULES } from "../kube/resources.js";
import type { NativeApi } from "../native/native-api.js";
import { ruleBody } from "../native/native-request-bodies.js";
import type { Controller } from "../runtime/controller.js";
import { nativeObjectController } from "./native-object-controller.js";

/** GuardrailRule CR -> /api/v1/guardrails/rules. */
export function guardrailRuleController(native: NativeApi): Controller<GuardrailRuleSpec> {
  return nativeObjectController({
    resource: GUARDRAIL_RULES,
    schema: guardrailRuleSpec,
    idField: "ruleId",
    api: native.guardrailRules,
    toBody: (spec) => ruleBody(spec),
  });
}
