import { canonicalJson, sha256Hex } from "../audit/audit-record.js";
import type { InferenceCall } from "../core/inference-call.js";

/** Request fields that do not change the answer (or are ours): left out of the key. */
const NOT_IN_KEY = new Set([
  "model",
  "messages",
  "stream",
  "stream_options",
  "user",
  "evident",
  "metadata",
  "store",
  "service_tier",
]);

const PROTECTED_CLASSES = new Set(["confidential", "restricted"]);

export interface CacheKey {
  /** Everything but the messages: customer, model and its version, guardrail policy, parameters. */
  scopeHash: string;
  /** The scope and the messages: identical requests, and only those, share it. */
  keyHash: string;
}

/**
 * The key of a call, after request guardrails (redacted text, so two prompts that differ only in
 * redacted PII share an entry) and routing (the model actually used and its version). The policy
 * version is part of it: a changed guardrail policy or rule never serves an answer stored under
 * the old one. Parameters set to null count as absent. A confidential or restricted call has a
 * key of its own classification.
 */
export function cacheKeyOf(call: InferenceCall, policyVersion: string): CacheKey {
  const params: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(call.body)) {
    if (!NOT_IN_KEY.has(k) && v !== null && v !== undefined) params[k] = v;
  }
  const scopeHash = sha256Hex(
    canonicalJson({
      customer: call.caller.customer.id,
      model: call.route?.model.name ?? call.requestedModel,
      model_version: call.route?.model.model?.version ?? null,
      policy: policyVersion,
      // Confidential and restricted answers (cached only when the customer allows it) are only
      // served to calls of the same classification, never to a lower one.
      protected_class: PROTECTED_CLASSES.has(call.classification) ? call.classification : null,
      params,
    }),
  );
  const keyHash = sha256Hex(
    canonicalJson({ scope: scopeHash, messages: call.body.messages ?? [] }),
  );
  return { scopeHash, keyHash };
}

/** A short digest of the guardrail configuration a call runs under. */
export function policyVersionOf(
  policy: unknown,
  rules: readonly { check: string; definition: unknown }[],
) {
  return sha256Hex(
    canonicalJson({
      policy,
      rules: rules.map((r) => ({ check: r.check, definition: r.definition })),
    }),
  ).slice(0, 32);
}
