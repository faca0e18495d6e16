/**
 * Test double for the data plane's native API: the contract of operator/native/native-api.ts,
 * in memory, with the behaviour the operator relies on (409 model_version_exists, the deployment
 * state machine with 409 invalid_state_transition, 422 with detail, DELETE semantics). The real
 * data plane replaces it in the lead's end-to-end test.
 */
import { randomUUID } from "node:crypto";
import { GatewayError } from "../../dataplane/core/errors.js";
import {
  clone,
  issue,
  requireFields,
  validateRoute,
  validateRule,
  validation,
} from "./memory-native-validation.js";
import type {
  DeploymentPatch,
  LegalHoldBody,
  ModelBody,
  Native,
  NativeApi,
  NativeCrud,
  NativeDeployment,
  NativeDeploymentStatus,
  NativeLegalHold,
  NativeModel,
  RouteBody,
  RuleBody,
  Scaling,
} from "../native/native-api.js";

const TRANSITIONS: Record<NativeDeploymentStatus, NativeDeploymentStatus[]> = {
  pending: ["provisioning", "failed"],
  provisioning: ["running", "failed"],
  running: [],
  failed: [],
  terminated: [],
};

export class MemoryNativeApi implements NativeApi {
  readonly modelStore = new Map<string, NativeModel>();
  readonly deploymentStore = new Map<string, NativeDeployment & { model_id: string }>();
  readonly routeStore = new Map<string, Native<RouteBody>>();
  readonly ruleStore = new Map<string, Native<RuleBody>>();
  readonly holdStore = new Map<string, NativeLegalHold>();
  /** Every write, in order ("POST models", "PATCH deployments provisioning", ...). */
  readonly writes: string[] = [];
  private readonly failures: { op: string; error: GatewayError }[] = [];
  private counter = 0;

  /** The next call named op ("models.create", "deployments.patch", ...) fails with error. */
  failNext(op: string, error: GatewayError): void {
    this.failures.push({ op, error });
  }

  /** Models routable through the gateway: those with a running deployment that has an endpoint. */
  routableEndpoints(): { model: string; endpoint: string }[] {
    return [...this.deploymentStore.values()]
      .filter((d) => d.status === "running" && d.endpoint_url)
      .map((d) => ({
        model: this.modelStore.get(d.model_id)?.name ?? "",
        endpoint: d.endpoint_url ?? "",
      }));
  }

  private enter(op: string): void {
    const index = this.failures.findIndex((f) => f.op === op);
    if (index >= 0) {
      const [failure] = this.failures.splice(index, 1);
      if (failure) throw failure.error;
    }
  }

  private nextId(prefix: string): string {
    this.counter += 1;
    return `${prefix}_${this.counter}_${randomUUID().slice(0, 8)}`;
  }

  readonly models: NativeApi["models"] = {
    create: async (body: ModelBody) => {
      this.enter("models.create");
      requireFields(body, ["name", "version", "modality", "required_tier"]);
      for (const model of this.modelStore.values()) {
        if (model.name === body.name && model.version === body.version) {
          throw new GatewayError(
            "model_version_exists",
            `model ${body.name} version ${body.version} already exists`,
          );
        }
      }
      const model: NativeModel = {
        ...structuredClone(body),
        id: this.nextId("mdl"),
        status: "registered",
      };
      this.modelStore.set(model.id, model);
      this.writes.push("POST models");
      return structuredClone(model);
    },
    get: async (id) => {
      this.enter("models.get");
      return clone(this.modelStore.get(id));
    },
    find: async (name, version) => {
      this.enter("models.find");
      return clone(
        [...this.modelStore.values()].find((m) => m.name === name && m.version === version),
      );
    },
    patch: async (id, body) => {
      this.enter("models.patch");
      const model = this.modelStore.get(id);
      if (!model) throw new GatewayError("model_not_found", `model ${id} not found`);
      if (model.status === "deregistered") {
        throw new GatewayError(
          "invalid_state_transition",
          `model ${id} is deregistered and cannot change`,
        );
      }
      const frozen = Object.keys(body).filter((k) => k !== "status" && k !== "engine_artifacts");
      if (frozen.length > 0) {
        throw validation(
          "fields are frozen after registration",
          frozen.map((k) => issue(["body", k], "frozen field")),
        );
      }
      Object.assign(model, structuredClone(body));
      this.writes.push("PATCH models");
      return structuredClone(model);
    },
    delete: async (id) => {
      this.enter("models.delete");
      if (!this.modelStore.has(id)) return;
      const active = [...this.deploymentStore.values()].some(
        (d) => d.model_id === id && d.status !== "terminated" && d.status !== "failed",
      );
      if (active)
        throw new GatewayError(
          "model_has_active_deployments",
          `model ${id} has active deployments`,
        );
      const model = this.modelStore.get(id);
      if (model && model.status !== "deregistered") {
        // Deregistering is a soft delete: the name+version stays taken.
        model.status = "deregistered";
        this.writes.push("DELETE models");
      }
    },
  };

  readonly deployments: NativeApi["deployments"] = {
    create: async (body: { model_id: string; scaling: Scaling }) => {
      this.enter("deployments.create");
      if (!this.modelStore.has(body.model_id)) {
        throw validation("model is not registered", [issue(["body", "model_id"], "unknown model")]);
      }
      const deployment = {
        id: this.nextId("dep"),
        model_id: body.model_id,
        status: "pending" as const,
        endpoint_url: null,
        scaling: { ...body.scaling },
      };
      this.deploymentStore.set(deployment.id, deployment);
      this.writes.push("POST deployments");
      return structuredClone(deployment);
    },
    get: async (id) => {
      this.enter("deployments.get");
      return clone(this.deploymentStore.get(id));
    },
    patch: async (id, body: DeploymentPatch) => {
      this.enter("deployments.patch");
      const deployment = this.deploymentStore.get(id);
      if (!deployment) throw new GatewayError("resource_not_found", `deployment ${id} not found`);
      if (body.status !== undefined && body.status !== deployment.status) {
        if (!TRANSITIONS[deployment.status].includes(body.status)) {
          throw new GatewayError(
            "invalid_state_transition",
            `cannot move deployment from ${deployment.status} to ${body.status}`,
          );
        }
        deployment.status = body.status;
      }
      if (body.endpoint_url !== undefined) deployment.endpoint_url = body.endpoint_url;
      if (body.reason !== undefined) deployment.reason = body.reason;
      if (body.scaling !== undefined) deployment.scaling = { ...body.scaling };
      this.writes.push(
        `PATCH deployments ${Object.keys(body).sort().join(",")}${body.status ? `=${body.status}` : ""}`,
      );
      return structuredClone(deployment);
    },
    delete: async (id) => {
      this.enter("deployments.delete");
      const deployment = this.deploymentStore.get(id);
      if (!deployment || deployment.status === "terminated") return;
      deployment.status = "terminated";
      deployment.endpoint_url = null;
      this.writes.push("DELETE deployments");
    },
  };

  readonly routes: NativeCrud<RouteBody, Native<RouteBody>> = this.crud(
    "routes",
    this.routeStore,
    validateRoute,
  );
  readonly guardrailRules: NativeCrud<RuleBody, Native<RuleBody>> = this.crud(
    "guardrailRules",
    this.ruleStore,
    validateRule,
  );

  readonly legalHolds: NativeApi["legalHolds"] = {
    create: async (body: LegalHoldBody) => {
      this.enter("legalHolds.create");
      requireFields(body, ["customer_id", "from", "to", "reason"]);
      if (Date.parse(body.from) > Date.parse(body.to))
        throw validation("from must not be after to", [issue(["body", "from"], "after to")]);
      const hold: NativeLegalHold = {
        ...structuredClone(body),
        id: this.nextId("hold"),
        active: true,
      };
      this.holdStore.set(hold.id, hold);
      this.writes.push("POST legal-hold");
      return structuredClone(hold);
    },
    list: async (customerId) => {
      this.enter("legalHolds.list");
      return [...this.holdStore.values()]
        .filter((h) => h.customer_id === customerId)
        .map((h) => structuredClone(h));
    },
    delete: async (id) => {
      this.enter("legalHolds.delete");
      const hold = this.holdStore.get(id);
      if (!hold || !hold.active) return;
      hold.active = false;
      this.writes.push("DELETE legal-hold");
    },
  };

  private crud<Body extends object>(
    name: string,
    store: Map<string, Native<Body>>,
    validate: (body: Partial<Body>) => void,
  ): NativeCrud<Body, Native<Body>> {
    return {
      create: async (body) => {
        this.enter(`${name}.create`);
        validate(body);
        const item = {
          ...structuredClone(body),
          id: this.nextId(name.slice(0, 4)),
        } as Native<Body>;
        store.set(item.id, item);
        this.writes.push(`POST ${name}`);
        return structuredClone(item);
      },
      get: async (id) => {
        this.enter(`${name}.get`);
        return clone(store.get(id));
      },
      patch: async (id, body) => {
        this.enter(`${name}.patch`);
        const item = store.get(id);
        if (!item) throw new GatewayError("resource_not_found", `${name} ${id} not found`);
        const next = { ...item, ...structuredClone(body) };
        validate(next);
        store.set(id, next);
        this.writes.push(`PATCH ${name}`);
        return structuredClone(next);
      },
      delete: async (id) => {
        this.enter(`${name}.delete`);
        if (store.delete(id)) this.writes.push(`DELETE ${name}`);
      },
    };
  }
}
