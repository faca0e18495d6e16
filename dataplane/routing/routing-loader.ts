import type { Broadcast } from "../broadcast/broadcast.js";
import type { Backend, Deployment, Model } from "../registry/inventory-types.js";
import type { CredentialCipher } from "../secrets/credential-cipher.js";
import type { BackendRepository } from "../store/backend-repository.js";
import type { DeploymentRepository } from "../store/deployment-repository.js";
import type { ModelRepository } from "../store/model-repository.js";
import { RoutingTable, TargetRotation } from "./routing-table.js";
import type { RoutableModel, Target } from "./routing-types.js";
import type { RouteConfig } from "./routes/route-config.js";

export const ROUTING_CHANNEL = "evident.routing.changed";
const ALL = { limit: 1_000_000, offset: 0 };

export interface RoutingSources {
  models: ModelRepository;
  deployments: DeploymentRepository;
  backends: BackendRepository;
  cipher: CredentialCipher;
  /** Customers' smart routes; without it no route applies. */
  routes?: { listEnabled(): Promise<RouteConfig[]> };
}

function servedName(model: Model): string {
  const served = model.engineArtifacts.served_model_name;
  return typeof served === "string" && served.length > 0 ? served : model.name;
}

function routable(model: Model, targets: Target[]): RoutableModel {
  return {
    name: model.name,
    model,
    aliases: model.aliases,
    requiredTier: model.requiredTier,
    pricing: model.pricing,
    modality: model.modality,
    contextWindow: model.contextWindow,
    targets,
    createdAt: model.createdAt,
  };
}

/**
 * Builds the table from the store: newest running version per name, plus customers' backends.
 * `rotation` is the caller's, kept across loads; the models no longer routable are dropped from it.
 */
export async function loadRoutingTable(
  src: RoutingSources,
  rotation: TargetRotation,
): Promise<RoutingTable> {
  const [models, running, backends, routes] = await Promise.all([
    src.models.list({}, ALL),
    src.deployments.list({ status: "running" }, ALL),
    src.backends.list(null),
    src.routes?.listEnabled() ?? [],
  ]);
  const live = models.filter((m) => m.status !== "deregistered" && m.status !== "failed");
  const byId = new Map(live.map((m) => [m.id, m]));
  const targetsByModel = new Map<string, Target[]>();
  for (const d of running as Deployment[]) {
    const model = byId.get(d.modelId);
    if (!model || !d.endpointUrl) continue;
    const list = targetsByModel.get(model.id) ?? [];
    list.push({
      id: d.id,
      kind: "deployment",
      baseUrl: d.endpointUrl,
      upstreamModel: servedName(model),
      credential: undefined,
    });
    targetsByModel.set(model.id, list);
  }
  // Newest version with a running deployment wins the name.
  const newestByName = new Map<string, Model>();
  for (const m of live) {
    if (!targetsByModel.has(m.id)) continue;
    const current = newestByName.get(m.name);
    if (!current || m.createdAt > current.createdAt) newestByName.set(m.name, m);
  }
  const global = [...newestByName.values()].map((m) => routable(m, targetsByModel.get(m.id) ?? []));

  const newestRegistered = new Map<string, Model>();
  for (const m of live) {
    const current = newestRegistered.get(m.name);
    if (!current || m.createdAt > current.createdAt) newestRegistered.set(m.name, m);
  }
  const perCustomer = new Map<string, RoutableModel[]>();
  for (const b of backends as Backend[]) {
    if (!b.enabled) continue;
    const credential = b.credentialCiphertext
      ? src.cipher.decrypt(b.credentialCiphertext)
      : undefined;
    const list = perCustomer.get(b.customerId) ?? [];
    for (const name of b.models) {
      const target: Target = {
        id: b.id,
        kind: "backend",
        baseUrl: b.baseUrl,
        upstreamModel: name,
        credential,
      };
      const existing = list.find((r) => r.name === name);
      if (existing) {
        existing.targets.push(target);
        continue;
      }
      const registered = newestRegistered.get(name);
      list.push(
        registered
          ? { ...routable(registered, [target]), aliases: [] }
          : {
              name,
              model: undefined,
              aliases: [],
              requiredTier: "free",
              pricing: { inputPer1k: 0, outputPer1k: 0 },
              modality: "text",
              contextWindow: null,
              targets: [target],
              createdAt: b.createdAt,
            },
      );
    }
    perCustomer.set(b.customerId, list);
  }
  const routesByCustomer = new Map<string, RouteConfig[]>();
  for (const r of routes) {
    const list = routesByCustomer.get(r.customerId) ?? [];
    list.push(r);
    routesByCustomer.set(r.customerId, list);
  }
  const table = new RoutingTable(global, perCustomer, routesByCustomer, rotation);
  rotation.retain(table.rotationKeys());
  return table;
}

/**
 * Keeps the current table: reloads on change notifications from any replica (debounced) and on a
 * timer as a safety net. A failed reload keeps the previous table.
 */
export class RoutingTableHolder {
  private table: RoutingTable | undefined;
  private readonly rotation = new TargetRotation();
  private reloading: Promise<void> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => Promise<void>) | undefined;

  constructor(
    private readonly sources: RoutingSources,
    private readonly broadcast: Broadcast,
    private readonly reloadMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  get current(): RoutingTable {
    if (!this.table) return new RoutingTable([], new Map());
    return this.table;
  }

  get loaded(): boolean {
    return this.table !== undefined;
  }

  async start(): Promise<void> {
    this.unsubscribe = await this.broadcast.subscribe(ROUTING_CHANNEL, () => void this.reload());
    await this.reload();
    this.timer = setInterval(() => void this.reload(), this.reloadMs);
    this.timer.unref();
  }

  /** Reloads now (coalescing concurrent requests into at most one more run). */
  reload(): Promise<void> {
    if (this.reloading) {
      this.again = true;
      return this.reloading;
    }
    this.reloading = (async () => {
      do {
        this.again = false;
        try {
          this.table = await loadRoutingTable(this.sources, this.rotation);
        } catch (err) {
          this.onError(err);
        }
      } while (this.again);
    })().finally(() => {
      this.reloading = undefined;
    });
    return this.reloading;
  }

  /** Reload here and tell every other replica to reload too. */
  async changed(): Promise<void> {
    await this.reload();
    await this.broadcast.publish(ROUTING_CHANNEL, "changed").catch(this.onError);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.unsubscribe?.().catch(() => undefined);
  }
}
