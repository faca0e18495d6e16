/**
 * A customer's guardrail policy (GET / PATCH /api/v1/guardrails/policy), snake_case on the wire.
 * `guardrailPolicySchema` fills every default, so `parse({})` is the default policy; the patch
 * schema is the same shape, every field optional, where `null` removes a per-entity or
 * per-category entry (JSON merge patch semantics).
 */
import { z } from "zod";
import { CLASSIFICATION_LEVELS } from "../../core/identity.js";
import { DEFAULT_INJECTION_THRESHOLD } from "../injection/injection-verdict.js";
import { PII_ENTITIES } from "../pii/entities.js";
import { SAFETY_CATEGORIES } from "../safety/safety-categories.js";
import { DEFAULT_SAFETY_THRESHOLD } from "../safety/safety-verdict.js";

export const PII_ACTIONS = ["block", "redact"] as const;
export const PII_ENTITY_ACTIONS = ["block", "redact", "allow"] as const;
export const DETECTOR_ACTIONS = ["block", "flag"] as const;
export const FAIL_MODES = ["open", "closed"] as const;
/**
 * How streamed answers are guarded on output. low_latency: every character no detector could still
 * extend into a match is released at once (whole-text checks stop the stream when they trip);
 * buffered: nothing is released before it was scanned with 192 characters of look-ahead.
 */
export const STREAM_MODES = ["low_latency", "buffered"] as const;
export type StreamMode = (typeof STREAM_MODES)[number];

export type PiiEntityAction = (typeof PII_ENTITY_ACTIONS)[number];
export type FailMode = (typeof FAIL_MODES)[number];

const score = z.number().min(0).max(1);
const piiEntity = z.enum(PII_ENTITIES);
const safetyCategory = z.enum(SAFETY_CATEGORIES);

const fields = {
  pii: {
    enabled: z.boolean(),
    action: z.enum(PII_ACTIONS),
    entities: z.partialRecord(piiEntity, z.enum(PII_ENTITY_ACTIONS)),
    restore_in_response: z.boolean(),
  },
  injection: { enabled: z.boolean(), threshold: score, action: z.enum(DETECTOR_ACTIONS) },
  safety: {
    enabled: z.boolean(),
    threshold: score,
    categories: z.partialRecord(safetyCategory, score),
    action: z.enum(DETECTOR_ACTIONS),
  },
  classification: { pii_floor: z.enum(CLASSIFICATION_LEVELS) },
  fail_mode: z.enum(FAIL_MODES),
  stream_mode: z.enum(STREAM_MODES),
};

/**
 * A check delegated to a classifier model served through the gateway's own routing (e.g. a safety
 * model behind a registered backend). It answers "safe" or "unsafe ..." (Llama Guard style).
 */
export const modelCheckSchema = z.strictObject({
  name: z.string().trim().min(1).max(100),
  /** A model name or alias routable for the customer. */
  model: z.string().trim().min(1).max(256),
  /** The error code a verdict of "unsafe" produces. */
  check: z.enum(["content_safety", "prompt_injection"]).default("content_safety"),
  timeout_ms: z.number().int().min(50).max(30_000).default(2_000),
  /** What a failure or timeout of the classifier does: block (closed) or let through (open). */
  fail_mode: z.enum(FAIL_MODES).default("closed"),
});
export type ModelCheck = z.output<typeof modelCheckSchema>;

export const guardrailPolicySchema = z.strictObject({
  pii: z
    .strictObject({
      enabled: fields.pii.enabled.default(true),
      action: fields.pii.action.default("redact"),
      entities: fields.pii.entities.default({}),
      restore_in_response: fields.pii.restore_in_response.default(false),
    })
    .prefault({}),
  injection: z
    .strictObject({
      enabled: fields.injection.enabled.default(true),
      threshold: fields.injection.threshold.default(DEFAULT_INJECTION_THRESHOLD),
      action: fields.injection.action.default("block"),
    })
    .prefault({}),
  safety: z
    .strictObject({
      enabled: fields.safety.enabled.default(true),
      threshold: fields.safety.threshold.default(DEFAULT_SAFETY_THRESHOLD),
      categories: fields.safety.categories.default({}),
      action: fields.safety.action.default("block"),
    })
    .prefault({}),
  classification: z
    .strictObject({ pii_floor: fields.classification.pii_floor.default("confidential") })
    .prefault({}),
  fail_mode: fields.fail_mode.default("closed"),
  stream_mode: fields.stream_mode.default("low_latency"),
  /** Classifier models asked about every request, in addition to the built-in detectors. */
  model_checks: z.array(modelCheckSchema).max(5).default([]),
});

export type GuardrailPolicy = z.output<typeof guardrailPolicySchema>;

/** The default policy: every detector on, PII redacted, fail closed. */
export function defaultPolicy(): GuardrailPolicy {
  return guardrailPolicySchema.parse({});
}

/** PATCH body and per-key override: any subset; `null` in `entities` / `categories` removes one. */
export const policyPatchSchema = z.strictObject({
  pii: z
    .strictObject({
      enabled: fields.pii.enabled.optional(),
      action: fields.pii.action.optional(),
      entities: z.partialRecord(piiEntity, z.enum(PII_ENTITY_ACTIONS).nullable()).optional(),
      restore_in_response: fields.pii.restore_in_response.optional(),
    })
    .optional(),
  injection: z.strictObject(fields.injection).partial().optional(),
  safety: z
    .strictObject({
      enabled: fields.safety.enabled.optional(),
      threshold: fields.safety.threshold.optional(),
      categories: z.partialRecord(safetyCategory, score.nullable()).optional(),
      action: fields.safety.action.optional(),
    })
    .optional(),
  classification: z.strictObject(fields.classification).partial().optional(),
  fail_mode: fields.fail_mode.optional(),
  stream_mode: fields.stream_mode.optional(),
  /** Replaces the list (an empty list removes every model check). */
  model_checks: z.array(modelCheckSchema).max(5).optional(),
});

export type PolicyPatch = z.output<typeof policyPatchSchema>;
