/** PATCH semantics for policies: a validated deep-partial patch over a full policy. */
import { guardrailPolicySchema, type GuardrailPolicy, type PolicyPatch } from "./policy-schema.js";

/** Applies `entries` to `current`: a value sets an entry, `null` removes it. */
function mergeEntries<K extends string, V>(
  current: Partial<Record<K, V>>,
  entries: Partial<Record<K, V | null>> | undefined,
): Partial<Record<K, V>> {
  const merged: Partial<Record<K, V>> = { ...current };
  if (entries === undefined) return merged;
  for (const key of Object.keys(entries) as K[]) {
    const value = entries[key];
    if (value === null) delete merged[key];
    else if (value !== undefined) merged[key] = value;
  }
  return merged;
}

function defined<T extends object>(patch: T | undefined): Partial<T> {
  const out: Partial<T> = {};
  if (patch === undefined) return out;
  for (const key of Object.keys(patch) as Array<keyof T>)
    if (patch[key] !== undefined) out[key] = patch[key];
  return out;
}

/**
 * A new policy: `base` with `patch` applied field by field (nested objects merge, scalars replace,
 * `null` entries in `pii.entities` / `safety.categories` remove them). The result is validated.
 */
export function mergePolicy(base: GuardrailPolicy, patch: PolicyPatch): GuardrailPolicy {
  const { entities, ...pii } = defined(patch.pii);
  const { categories, ...safety } = defined(patch.safety);
  return guardrailPolicySchema.parse({
    ...base,
    ...defined({
      fail_mode: patch.fail_mode,
      stream_mode: patch.stream_mode,
      model_checks: patch.model_checks,
    }),
    pii: { ...base.pii, ...pii, entities: mergeEntries(base.pii.entities, entities) },
    injection: { ...base.injection, ...defined(patch.injection) },
    safety: {
      ...base.safety,
      ...safety,
      categories: mergeEntries(base.safety.categories, categories),
    },
    classification: { ...base.classification, ...defined(patch.classification) },
  });
}

/**
 * The policy a call made with one API key runs under: the customer's policy with the key's
 * override (same deep-partial shape) applied. No override: the customer's policy.
 */
export function overrideForKey(
  policy: GuardrailPolicy,
  keyOverride: PolicyPatch | undefined | null,
): GuardrailPolicy {
  return keyOverride ? mergePolicy(policy, keyOverride) : policy;
}
