import type { Tier } from "../core/identity.js";
import type { Modality, Model, Pricing } from "../registry/inventory-types.js";

/** Somewhere a request can be sent: a running deployment or a customer's registered backend. */
export interface Target {
  id: string;
  kind: "deployment" | "backend";
  /** OpenAI-compatible base URL including its version path, e.g. http://vllm:8000/v1 */
  baseUrl: string;
  /** The model name the upstream expects in the body. */
  upstreamModel: string;
  /** Bearer credential for the upstream (decrypted in memory only). */
  credential: string | undefined;
}

/** A model as routing sees it: what the caller may name, and where it can go. */
export interface RoutableModel {
  /** The public name callers use. */
  name: string;
  /** The registry entry behind it; undefined for a model only a backend serves. */
  model: Model | undefined;
  aliases: string[];
  requiredTier: Tier;
  pricing: Pricing;
  modality: Modality;
  contextWindow: number | null;
  targets: Target[];
  createdAt: Date;
  /**
   * Where this model's turn among its targets is counted (`TargetRotation`). Unset for a shared
   * model (its name is the key); the routing table sets it on a customer's own backends, so that
   * other customers' calls to a shared model of the same name do not move their rotation.
   */
  rotationKey?: string;
}

export interface RouteDecision {
  model: RoutableModel;
  /** Targets in the order to try them: the first is the pick, the rest are fallbacks. */
  targets: Target[];
  /** Set when one of the customer's smart routes decided the model. */
  routeId?: string;
  strategy?: string;
  /** The route target picked (the A/B arm), as the route names it. */
  arm?: string;
  /**
   * For a smart route whose targets span several models: the model and route target each target
   * belongs to, so a call that failed over is accounted to the model that served it.
   */
  servedBy?: ReadonlyMap<Target, { model: RoutableModel; arm: string }>;
}
