import { z } from "zod";

/**
 * The spec of each custom resource as the operator reads it, with the same defaults as crds/*.yaml. The CRDs validate on admission; these
 * schemas re-check so a spec the operator cannot act on becomes an InvalidSpec condition, not a crash.
 */

const stringMap = z.record(z.string(), z.string());

export const modelSpec = z.object({
  name: z.string().min(1),
  version: z.string().min(1),
  architecture: z.string().optional(),
  modality: z.enum(["text", "embedding", "audio", "multimodal", "realtime"]).default("text"),
  engine: z.enum(["vllm", "tgi", "ollama", "generic"]),
  image: z.string().min(1).optional(),
  aliases: z.array(z.string()).optional(),
  requiredTier: z.enum(["free", "pro", "business", "enterprise"]).default("free"),
  pricing: z
    .object({
      inputPer1k: z.number().nonnegative().default(0),
      outputPer1k: z.number().nonnegative().default(0),
    })
    .optional(),
  contextWindow: z.number().int().positive().optional(),
  engineArtifacts: z.record(z.string(), z.unknown()).optional(),
});
export type ModelSpec = z.infer<typeof modelSpec>;

const quantity = z.union([z.string(), z.number()]);

export const deploymentSpec = z.object({
  modelRef: z.string().min(1),
  scaling: z
    .object({
      minReplicas: z.number().int().min(0).default(1),
      maxReplicas: z.number().int().min(1).default(1),
      targetConcurrency: z.number().int().positive().optional(),
    })
    .optional(),
  resources: z
    .object({
      requests: z.record(z.string(), quantity).optional(),
      limits: z.record(z.string(), quantity).optional(),
    })
    .optional(),
  gpu: z.object({ count: z.number().int().min(0), type: z.string().min(1).optional() }).optional(),
  /** Either a list of CLI arguments or a map rendered as `--key value`. */
  engineArgs: z
    .union([
      z.array(z.string()),
      z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
    ])
    .optional(),
  port: z.number().int().min(1).max(65535).default(8000),
  provisioningTimeoutSeconds: z.number().int().positive().default(900),
});
export type DeploymentSpec = z.infer<typeof deploymentSpec>;

export const routeSpec = z.object({
  customerId: z.string().min(1),
  name: z.string().optional(),
  match: z.object({ model: z.string().min(1), headers: stringMap.optional() }),
  strategy: z.enum(["weighted", "fallback", "cheapest", "ab"]).default("weighted"),
  targets: z
    .array(z.object({ model: z.string().min(1), weight: z.number().min(0).default(1) }))
    .min(1),
  enabled: z.boolean().default(true),
});
export type RouteSpec = z.infer<typeof routeSpec>;

export const guardrailRuleSpec = z.object({
  customerId: z.string().min(1),
  name: z.string().min(1),
  kind: z.enum(["regex", "keyword", "pii", "max_tokens"]),
  pattern: z.string().optional(),
  keywords: z.array(z.string()).optional(),
  entities: z.array(z.string()).optional(),
  maxTokens: z.number().int().positive().optional(),
  action: z.enum(["block", "redact", "flag"]).default("block"),
  appliesTo: z.enum(["input", "output", "both"]).default("input"),
  enabled: z.boolean().default(true),
});
export type GuardrailRuleSpec = z.infer<typeof guardrailRuleSpec>;

export const legalHoldSpec = z.object({
  customerId: z.string().min(1),
  from: z.string().min(1),
  to: z.string().min(1),
  reason: z.string().min(1),
  scope: z
    .object({ model: z.string().optional(), keyIds: z.array(z.string()).optional() })
    .optional(),
});
export type LegalHoldSpec = z.infer<typeof legalHoldSpec>;

/** "spec.targets.0.weight: Too small" style text for a condition message. */
export function describeSpecError(error: z.ZodError): string {
  return error.issues.map((issue) => `spec.${issue.path.join(".")}: ${issue.message}`).join("; ");
}
