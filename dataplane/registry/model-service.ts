import { GatewayError } from "../core/errors.js";
import type { Caller, Tier } from "../core/identity.js";
import { newId } from "../core/ids.js";
import { REGISTRY_ROLES, requireRole } from "../core/permissions.js";
import type { RoutingTableHolder } from "../routing/routing-loader.js";
import type { DeploymentRepository } from "../store/deployment-repository.js";
import type { ModelFilter, ModelRepository } from "../store/model-repository.js";
import {
  ACTIVE_DEPLOYMENT_STATUSES,
  type Modality,
  type Model,
  type ModelStatus,
  type Pricing,
} from "./inventory-types.js";

export interface RegisterModelInput {
  name: string;
  version: string;
  architecture: string | null;
  modality: Modality;
  aliases: string[];
  requiredTier: Tier;
  pricing: Pricing;
  contextWindow: number | null;
  engineArtifacts: Record<string, unknown>;
}

/** Registry writes need an admin or operator key. */
export function requireAdmin(caller: Caller, action: string): void {
  requireRole(caller, REGISTRY_ROLES, action);
}

/** The model registry: name+version is unique and immutable; only status and artifacts change. */
export class ModelService {
  constructor(
    private readonly models: ModelRepository,
    private readonly deployments: DeploymentRepository,
    private readonly routing: RoutingTableHolder,
  ) {}

  async register(caller: Caller, input: RegisterModelInput): Promise<Model> {
    requireAdmin(caller, "register models");
    const created = await this.models.create({ id: newId("mdl"), status: "registered", ...input });
    if (!created) {
      throw new GatewayError(
        "model_version_exists",
        `model ${input.name} version ${input.version} already exists; versions are immutable, register a new version instead`,
      );
    }
    return created;
  }

  list(filter: ModelFilter, page: { limit: number; offset: number }): Promise<Model[]> {
    return this.models.list(filter, page);
  }

  async get(id: string): Promise<Model> {
    const model = await this.models.get(id);
    if (!model) throw new GatewayError("resource_not_found", `model ${id} not found`);
    return model;
  }

  async update(
    caller: Caller,
    id: string,
    patch: { status?: ModelStatus; engineArtifacts?: Record<string, unknown> },
  ): Promise<Model> {
    requireAdmin(caller, "change models");
    const current = await this.get(id);
    if (current.status === "deregistered") {
      throw new GatewayError(
        "invalid_state_transition",
        `model ${id} is deregistered and cannot change`,
      );
    }
    const updated = await this.models.update(id, patch);
    if (!updated) throw new GatewayError("resource_not_found", `model ${id} not found`);
    await this.routing.changed();
    return updated;
  }

  /** Deregisters a model; refused while it has pending, provisioning or running deployments. */
  async deregister(caller: Caller, id: string): Promise<Model> {
    requireAdmin(caller, "deregister models");
    await this.get(id);
    const active = await this.deployments.countActiveForModel(id, ACTIVE_DEPLOYMENT_STATUSES);
    if (active > 0) {
      throw new GatewayError(
        "model_has_active_deployments",
        `model ${id} has ${active} active deployment(s); delete them first`,
      );
    }
    const updated = (await this.models.update(id, { status: "deregistered" })) as Model;
    await this.routing.changed();
    return updated;
  }
}
