/** CR specs (camelCase) mapped to the native API's request bodies (snake_case). */
import type { GuardrailRuleSpec, LegalHoldSpec, ModelSpec, RouteSpec } from "../crd/specs.js";
import type { LegalHoldBody, ModelBody, RouteBody, RuleBody } from "./native-api.js";

export function modelBody(spec: ModelSpec): ModelBody {
  return dropUndefined({
    name: spec.name,
    version: spec.version,
    architecture: spec.architecture,
    modality: spec.modality,
    aliases: spec.aliases ?? [],
    required_tier: spec.requiredTier,
    pricing: spec.pricing && {
      input_per_1k: spec.pricing.inputPer1k,
      output_per_1k: spec.pricing.outputPer1k,
    },
    context_window: spec.contextWindow,
    engine_artifacts: spec.engineArtifacts ?? {},
  });
}

export function routeBody(spec: RouteSpec, fallbackName: string): RouteBody {
  return {
    customer_id: spec.customerId,
    name: spec.name ?? fallbackName,
    match: dropUndefined({ model: spec.match.model, headers: spec.match.headers }),
    strategy: spec.strategy,
    targets: spec.targets.map((t) => ({ model: t.model, weight: t.weight })),
    enabled: spec.enabled,
  };
}

export function ruleBody(spec: GuardrailRuleSpec): RuleBody {
  return dropUndefined({
    customer_id: spec.customerId,
    name: spec.name,
    kind: spec.kind,
    pattern: spec.pattern,
    keywords: spec.keywords,
    entities: spec.entities,
    max_tokens: spec.maxTokens,
    action: spec.action,
    applies_to: spec.appliesTo,
    enabled: spec.enabled,
  });
}

export function legalHoldBody(spec: LegalHoldSpec): LegalHoldBody {
  return dropUndefined({
    customer_id: spec.customerId,
    from: spec.from,
    to: spec.to,
    reason: spec.reason,
    scope: spec.scope,
  });
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
