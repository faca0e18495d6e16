import type { Tier } from "../core/identity.js";

/**
 * Model status: `registered` on creation; a build pipeline moves it through `building` to `ready`
 * or `failed`; `deprecated` still routes but is hidden from new clients' catalogues; DELETE makes
 * it `deregistered` (terminal; the name+version stays taken).
 */
export const MODEL_STATUSES = [
  "registered",
  "building",
  "ready",
  "failed",
  "deprecated",
  "deregistered",
] as const;
export type ModelStatus = (typeof MODEL_STATUSES)[number];

export const MODALITIES = ["text", "embedding", "audio", "multimodal", "realtime"] as const;
export type Modality = (typeof MODALITIES)[number];

export const DEPLOYMENT_STATUSES = [
  "pending",
  "provisioning",
  "running",
  "failed",
  "terminated",
] as const;
export type DeploymentStatus = (typeof DEPLOYMENT_STATUSES)[number];

/** Moves PATCH may make. `terminated` is reached only by DELETE. */
export const DEPLOYMENT_TRANSITIONS: Record<DeploymentStatus, readonly DeploymentStatus[]> = {
  pending: ["provisioning", "failed"],
  provisioning: ["running", "failed"],
  running: [],
  failed: [],
  terminated: [],
};

/** Deployments that keep a model from being deregistered. */
export const ACTIVE_DEPLOYMENT_STATUSES: readonly DeploymentStatus[] = [
  "pending",
  "provisioning",
  "running",
];

export interface Pricing {
  inputPer1k: number;
  outputPer1k: number;
}

export interface Model {
  id: string;
  name: string;
  version: string;
  architecture: string | null;
  modality: Modality;
  status: ModelStatus;
  aliases: string[];
  requiredTier: Tier;
  pricing: Pricing;
  contextWindow: number | null;
  engineArtifacts: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

export interface Scaling {
  min_replicas?: number;
  max_replicas?: number;
  target_concurrency?: number;
}

export interface Deployment {
  id: string;
  modelId: string;
  status: DeploymentStatus;
  endpointUrl: string | null;
  scaling: Scaling;
  reason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface Backend {
  id: string;
  customerId: string;
  name: string;
  baseUrl: string;
  /** Encrypted at rest; decrypted only to call the backend. Never returned by the API. */
  credentialCiphertext: string | null;
  models: string[];
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}
