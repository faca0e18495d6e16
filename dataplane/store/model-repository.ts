import type { Tier } from "../core/identity.js";
import type { Modality, Model, ModelStatus } from "../registry/inventory-types.js";
import type { Queryable } from "./database.js";

interface ModelRow {
  id: string;
  name: string;
  version: string;
  architecture: string | null;
  modality: Modality;
  status: ModelStatus;
  aliases: string[];
  required_tier: Tier;
  input_per_1k: number;
  output_per_1k: number;
  context_window: number | null;
  engine_artifacts: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, name, version, architecture, modality, status, aliases, required_tier,
  input_per_1k, output_per_1k, context_window, engine_artifacts, created_at, updated_at`;

function toModel(r: ModelRow): Model {
  return {
    id: r.id,
    name: r.name,
    version: r.version,
    architecture: r.architecture,
    modality: r.modality,
    status: r.status,
    aliases: r.aliases,
    requiredTier: r.required_tier,
    pricing: { inputPer1k: r.input_per_1k, outputPer1k: r.output_per_1k },
    contextWindow: r.context_window,
    engineArtifacts: r.engine_artifacts,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export type NewModel = Omit<Model, "createdAt" | "updatedAt">;

export interface ModelFilter {
  status?: ModelStatus;
  architecture?: string;
  modality?: Modality;
  name?: string;
}

export class ModelRepository {
  constructor(private readonly db: Queryable) {}

  /** Inserts; returns undefined when name+version is taken. */
  async create(m: NewModel): Promise<Model | undefined> {
    const rows = await this.db.query<ModelRow>(
      `INSERT INTO models (id, name, version, architecture, modality, status, aliases, required_tier,
                           input_per_1k, output_per_1k, context_window, engine_artifacts)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10, $11, $12::jsonb)
       ON CONFLICT (name, version) DO NOTHING
       RETURNING ${COLUMNS}`,
      [
        m.id,
        m.name,
        m.version,
        m.architecture,
        m.modality,
        m.status,
        JSON.stringify(m.aliases),
        m.requiredTier,
        m.pricing.inputPer1k,
        m.pricing.outputPer1k,
        m.contextWindow,
        JSON.stringify(m.engineArtifacts),
      ],
    );
    return rows[0] ? toModel(rows[0]) : undefined;
  }

  async get(id: string): Promise<Model | undefined> {
    const rows = await this.db.query<ModelRow>(`SELECT ${COLUMNS} FROM models WHERE id = $1`, [id]);
    return rows[0] ? toModel(rows[0]) : undefined;
  }

  async list(filter: ModelFilter, page: { limit: number; offset: number }): Promise<Model[]> {
    const rows = await this.db.query<ModelRow>(
      `SELECT ${COLUMNS} FROM models
        WHERE ($1::text IS NULL OR status = $1)
          AND ($2::text IS NULL OR architecture = $2)
          AND ($3::text IS NULL OR modality = $3)
          AND ($4::text IS NULL OR name = $4)
        ORDER BY created_at, id LIMIT $5 OFFSET $6`,
      [
        filter.status ?? null,
        filter.architecture ?? null,
        filter.modality ?? null,
        filter.name ?? null,
        page.limit,
        page.offset,
      ],
    );
    return rows.map(toModel);
  }

  async update(
    id: string,
    patch: { status?: ModelStatus; engineArtifacts?: Record<string, unknown> },
  ): Promise<Model | undefined> {
    const rows = await this.db.query<ModelRow>(
      `UPDATE models
          SET status = COALESCE($2, status),
              engine_artifacts = COALESCE($3::jsonb, engine_artifacts),
              updated_at = now()
        WHERE id = $1
        RETURNING ${COLUMNS}`,
      [
        id,
        patch.status ?? null,
        patch.engineArtifacts === undefined ? null : JSON.stringify(patch.engineArtifacts),
      ],
    );
    return rows[0] ? toModel(rows[0]) : undefined;
  }

  async countByStatus(): Promise<Record<string, number>> {
    const rows = await this.db.query<{ status: string; n: number }>(
      "SELECT status, count(*)::int AS n FROM models GROUP BY status",
    );
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  }
}
