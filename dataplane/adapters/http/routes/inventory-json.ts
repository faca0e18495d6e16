import type { Backend, Deployment, Model } from "../../../registry/inventory-types.js";

/** Wire shapes of the registry resources (snake_case). */
export function modelJson(m: Model) {
  return {
    id: m.id,
    object: "model" as const,
    name: m.name,
    version: m.version,
    architecture: m.architecture,
    modality: m.modality,
    status: m.status,
    aliases: m.aliases,
    required_tier: m.requiredTier,
    pricing: { input_per_1k: m.pricing.inputPer1k, output_per_1k: m.pricing.outputPer1k },
    context_window: m.contextWindow,
    engine_artifacts: m.engineArtifacts,
    created_at: m.createdAt.toISOString(),
    updated_at: m.updatedAt.toISOString(),
  };
}

/** `showEndpoint` false (members): the internal endpoint URL is left out (null). */
export function deploymentJson(d: Deployment, showEndpoint = true) {
  return {
    id: d.id,
    object: "deployment" as const,
    model_id: d.modelId,
    status: d.status,
    endpoint_url: showEndpoint ? d.endpointUrl : null,
    scaling: d.scaling,
    reason: d.reason,
    created_at: d.createdAt.toISOString(),
    updated_at: d.updatedAt.toISOString(),
  };
}

/** A backend as its customer sees it: the credential is never returned, only whether one is set. */
export function backendJson(b: Backend) {
  return {
    id: b.id,
    object: "backend" as const,
    customer_id: b.customerId,
    name: b.name,
    base_url: b.baseUrl,
    models: b.models,
    enabled: b.enabled,
    has_credential: b.credentialCiphertext !== null,
    created_at: b.createdAt.toISOString(),
    updated_at: b.updatedAt.toISOString(),
  };
}
