import type { Deployment, DeploymentStatus, Scaling } from "../registry/inventory-types.js";
import type { Queryable } from "./database.js";

interface DeploymentRow {
  id: string;
  model_id: string;
  status: DeploymentStatus;
  endpoint_url: string | null;
  scaling: Scaling;
  reason: string | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = "id, model_id, status, endpoint_url, scaling, reason, created_at, updated_at";

function toDeployment(r: DeploymentRow): Deployment {
  return {
    id: r.id,
    modelId: r.model_id,
    status: r.status,
    endpointUrl: r.endpoint_url,
    scaling: r.scaling,
    reason: r.reason,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export class DeploymentRepository {
  constructor(private readonly db: Queryable) {}

  async create(d: { id: string; modelId: string; scaling: Scaling }): Promise<Deployment> {
    const rows = await this.db.query<DeploymentRow>(
      `INSERT INTO deployments (id, model_id, status, scaling)
       VALUES ($1, $2, 'pending', $3::jsonb) RETURNING ${COLUMNS}`,
      [d.id, d.modelId, JSON.stringify(d.scaling)],
    );
    return toDeployment(rows[0] as DeploymentRow);
  }

  async get(id: string): Promise<Deployment | undefined> {
    const rows = await this.db.query<DeploymentRow>(
      `SELECT ${COLUMNS} FROM deployments WHERE id = $1`,
      [id],
    );
    return rows[0] ? toDeployment(rows[0]) : undefined;
  }

  async list(
    filter: { status?: DeploymentStatus; modelId?: string; statuses?: readonly DeploymentStatus[] },
    page: { limit: number; offset: number },
  ): Promise<Deployment[]> {
    const rows = await this.db.query<DeploymentRow>(
      `SELECT ${COLUMNS} FROM deployments
        WHERE ($1::text IS NULL OR status = $1)
          AND ($2::text IS NULL OR model_id = $2)
          AND ($3::text[] IS NULL OR status = ANY($3::text[]))
        ORDER BY created_at, id LIMIT $4 OFFSET $5`,
      [
        filter.status ?? null,
        filter.modelId ?? null,
        filter.statuses ?? null,
        page.limit,
        page.offset,
      ],
    );
    return rows.map(toDeployment);
  }

  /**
   * Applies a change only if the deployment is still in `expected` status (optimistic concurrency:
   * two writers cannot both make a transition from the same state).
   */
  async transition(
    id: string,
    expected: DeploymentStatus,
    patch: {
      status?: DeploymentStatus;
      endpointUrl?: string | null;
      scaling?: Scaling;
      reason?: string | null;
    },
  ): Promise<Deployment | undefined> {
    const rows = await this.db.query<DeploymentRow>(
      `UPDATE deployments
          SET status = COALESCE($3, status),
              endpoint_url = CASE WHEN $4::boolean THEN $5 ELSE endpoint_url END,
              scaling = COALESCE($6::jsonb, scaling),
              reason = CASE WHEN $7::boolean THEN $8 ELSE reason END,
              updated_at = now()
        WHERE id = $1 AND status = $2
        RETURNING ${COLUMNS}`,
      [
        id,
        expected,
        patch.status ?? null,
        patch.endpointUrl !== undefined,
        patch.endpointUrl ?? null,
        patch.scaling === undefined ? null : JSON.stringify(patch.scaling),
        patch.reason !== undefined,
        patch.reason ?? null,
      ],
    );
    return rows[0] ? toDeployment(rows[0]) : undefined;
  }

  async countActiveForModel(
    modelId: string,
    statuses: readonly DeploymentStatus[],
  ): Promise<number> {
    const rows = await this.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM deployments WHERE model_id = $1 AND status = ANY($2::text[])",
      [modelId, statuses],
    );
    return rows[0]?.n ?? 0;
  }

  async countByStatus(): Promise<Record<string, number>> {
    const rows = await this.db.query<{ status: string; n: number }>(
      "SELECT status, count(*)::int AS n FROM deployments GROUP BY status",
    );
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  }
}
