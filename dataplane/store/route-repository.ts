import type { ArmObservation } from "../routing/routes/ab-statistics.js";
import type {
  RouteConfig,
  RouteMatch,
  RouteStrategy,
  RouteTarget,
} from "../routing/routes/route-config.js";
import type { Queryable } from "./database.js";
import { armObservations } from "./arm-observations.js";

interface RouteRow {
  id: string;
  customer_id: string;
  name: string;
  match: RouteMatch;
  strategy: RouteStrategy;
  targets: RouteTarget[];
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

const toRoute = (r: RouteRow): RouteConfig => ({
  id: r.id,
  customerId: r.customer_id,
  name: r.name,
  match: { model: r.match.model, headers: r.match.headers ?? {} },
  strategy: r.strategy,
  targets: r.targets,
  enabled: r.enabled,
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
});

export type NewRoute = Omit<RouteConfig, "createdAt" | "updatedAt">;
export type RouteChanges = Partial<
  Pick<RouteConfig, "name" | "match" | "strategy" | "targets" | "enabled">
>;

/** Customers' smart-routing rules. Reads by id are scoped by the caller (see the HTTP layer). */
export class RouteRepository {
  constructor(private readonly db: Queryable) {}

  async create(route: NewRoute): Promise<RouteConfig> {
    const [row] = await this.db.query<RouteRow>(
      `INSERT INTO routes (id, customer_id, name, match, strategy, targets, enabled)
       VALUES ($1, $2, $3, $4::jsonb, $5, $6::jsonb, $7) RETURNING *`,
      [
        route.id,
        route.customerId,
        route.name,
        JSON.stringify(route.match),
        route.strategy,
        JSON.stringify(route.targets),
        route.enabled,
      ],
    );
    return toRoute(row as RouteRow);
  }

  async get(id: string): Promise<RouteConfig | undefined> {
    const [row] = await this.db.query<RouteRow>("SELECT * FROM routes WHERE id = $1", [id]);
    return row ? toRoute(row) : undefined;
  }

  /** One customer's routes, oldest first (the order in which they are matched). */
  async listForCustomer(customerId: string): Promise<RouteConfig[]> {
    const rows = await this.db.query<RouteRow>(
      "SELECT * FROM routes WHERE customer_id = $1 ORDER BY created_at, id",
      [customerId],
    );
    return rows.map(toRoute);
  }

  /** Every enabled route of every customer, oldest first, for the routing table. */
  async listEnabled(): Promise<RouteConfig[]> {
    const rows = await this.db.query<RouteRow>(
      "SELECT * FROM routes WHERE enabled ORDER BY created_at, id",
    );
    return rows.map(toRoute);
  }

  async update(id: string, changes: RouteChanges): Promise<RouteConfig | undefined> {
    const [row] = await this.db.query<RouteRow>(
      `UPDATE routes SET
         name = COALESCE($2, name),
         match = COALESCE($3::jsonb, match),
         strategy = COALESCE($4, strategy),
         targets = COALESCE($5::jsonb, targets),
         enabled = COALESCE($6, enabled),
         updated_at = now()
       WHERE id = $1 RETURNING *`,
      [
        id,
        changes.name ?? null,
        changes.match ? JSON.stringify(changes.match) : null,
        changes.strategy ?? null,
        changes.targets ? JSON.stringify(changes.targets) : null,
        changes.enabled ?? null,
      ],
    );
    return row ? toRoute(row) : undefined;
  }

  async delete(id: string): Promise<boolean> {
    const rows = await this.db.query<{ id: string }>(
      "DELETE FROM routes WHERE id = $1 RETURNING id",
      [id],
    );
    return rows.length > 0;
  }
}

/** The audit log's view of one route's inference calls, for A/B results. */
export function routeObservations(
  db: Queryable,
  customerId: string,
  routeId: string,
  limit: number,
): Promise<ArmObservation[]> {
  return armObservations(
    db,
    customerId,
    { arm: "f->'route'->>'arm'", match: "f->'route'->>'route_id' = $2", params: [routeId] },
    limit,
  );
}
