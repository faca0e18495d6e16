import { GatewayError } from "../core/errors.js";
import type { Caller } from "../core/identity.js";
import { newId } from "../core/ids.js";
import type { RoutingTableHolder } from "../routing/routing-loader.js";
import type { DeploymentRepository } from "../store/deployment-repository.js";
import type { ModelRepository } from "../store/model-repository.js";
import {
  DEPLOYMENT_TRANSITIONS,
  type Deployment,
  type DeploymentStatus,
  type Scaling,
} from "./inventory-types.js";
import { requireAdmin } from "./model-service.js";

export interface DeploymentPatch {
  status?: DeploymentStatus;
  endpointUrl?: string;
  scaling?: Scaling;
  reason?: string;
}

/** Deployments follow spec section 3: pending -> provisioning -> running; pre-running -> failed. */
export class DeploymentService {
  constructor(
    private readonly deployments: DeploymentRepository,
    private readonly models: ModelRepository,
    private readonly routing: RoutingTableHolder,
  ) {}

  async create(caller: Caller, input: { modelId: string; scaling: Scaling }): Promise<Deployment> {
    requireAdmin(caller, "create deployments");
    const model = await this.models.get(input.modelId);
    if (!model || model.status === "deregistered") {
      throw new GatewayError("validation_failed", `model ${input.modelId} is not registered`, {
        detail: [
          {
            loc: ["body", "model_id"],
            msg: "unknown or deregistered model",
            type: "unknown_model",
          },
        ],
      });
    }
    return this.deployments.create({ id: newId("dep"), ...input });
  }

  async get(id: string): Promise<Deployment> {
    const d = await this.deployments.get(id);
    if (!d) throw new GatewayError("resource_not_found", `deployment ${id} not found`);
    return d;
  }

  list(
    filter: { status?: DeploymentStatus; modelId?: string },
    page: { limit: number; offset: number },
  ) {
    return this.deployments.list(filter, page);
  }

  async update(caller: Caller, id: string, patch: DeploymentPatch): Promise<Deployment> {
    requireAdmin(caller, "change deployments");
    const current = await this.get(id);
    const target = patch.status ?? current.status;
    if (target !== current.status && !DEPLOYMENT_TRANSITIONS[current.status].includes(target)) {
      const allowed = DEPLOYMENT_TRANSITIONS[current.status];
      throw new GatewayError(
        "invalid_state_transition",
        `deployment ${id} cannot move from ${current.status} to ${target}` +
          (allowed.length ? `; allowed: ${allowed.join(", ")}` : `; ${current.status} is final`),
      );
    }
    if (current.status === "terminated") {
      throw new GatewayError("invalid_state_transition", `deployment ${id} is terminated`);
    }
    const endpoint = patch.endpointUrl ?? current.endpointUrl;
    if (target === "running" && !endpoint) {
      throw new GatewayError("validation_failed", "a running deployment needs an endpoint_url", {
        detail: [
          {
            loc: ["body", "endpoint_url"],
            msg: "required when status is running",
            type: "missing",
          },
        ],
      });
    }
    const updated = await this.deployments.transition(id, current.status, {
      status: patch.status,
      endpointUrl: patch.endpointUrl,
      scaling: patch.scaling,
      reason: patch.reason,
    });
    if (!updated) {
      throw new GatewayError(
        "invalid_state_transition",
        `deployment ${id} changed concurrently; retry`,
      );
    }
    if (updated.status === "running" || current.status === "running") await this.routing.changed();
    return updated;
  }

  /** Terminates a deployment and removes it from routing. Deleting a terminated one is a no-op. */
  async terminate(caller: Caller, id: string): Promise<Deployment> {
    requireAdmin(caller, "delete deployments");
    for (let attempt = 0; attempt < 3; attempt++) {
      const current = await this.get(id);
      if (current.status === "terminated") return current;
      const updated = await this.deployments.transition(id, current.status, {
        status: "terminated",
      });
      if (updated) {
        await this.routing.changed();
        return updated;
      }
    }
    throw new GatewayError(
      "invalid_state_transition",
      `deployment ${id} changed concurrently; retry`,
    );
  }
}
