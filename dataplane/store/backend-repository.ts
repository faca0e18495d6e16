import type { Backend } from "../registry/inventory-types.js";
import type { Queryable } from "./database.js";

interface BackendRow {
  id: string;
  customer_id: string;
  name: string;
  base_url: string;
  credential_ciphertext: string | null;
  models: string[];
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS =
  "id, customer_id, name, base_url, credential_ciphertext, models, enabled, created_at, updated_at";

function toBackend(r: BackendRow): Backend {
  return {
    id: r.id,
    customerId: r.customer_id,
    name: r.name,
    baseUrl: r.base_url,
    credentialCiphertext: r.credential_ciphertext,
    models: r.models,
    enabled: r.enabled,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export class BackendRepository {
  constructor(private readonly db: Queryable) {}

  async create(b: Omit<Backend, "createdAt" | "updatedAt">): Promise<Backend> {
    const rows = await this.db.query<BackendRow>(
      `INSERT INTO backends (id, customer_id, name, base_url, credential_ciphertext, models, enabled)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7) RETURNING ${COLUMNS}`,
      [
        b.id,
        b.customerId,
        b.name,
        b.baseUrl,
        b.credentialCiphertext,
        JSON.stringify(b.models),
        b.enabled,
      ],
    );
    return toBackend(rows[0] as BackendRow);
  }

  /** One backend, scoped to a customer unless customerId is null (admin). */
  async get(id: string, customerId: string | null): Promise<Backend | undefined> {
    const rows = await this.db.query<BackendRow>(
      `SELECT ${COLUMNS} FROM backends WHERE id = $1 AND ($2::text IS NULL OR customer_id = $2)`,
      [id, customerId],
    );
    return rows[0] ? toBackend(rows[0]) : undefined;
  }

  async list(customerId: string | null): Promise<Backend[]> {
    const rows = await this.db.query<BackendRow>(
      `SELECT ${COLUMNS} FROM backends WHERE ($1::text IS NULL OR customer_id = $1)
        ORDER BY created_at, id`,
      [customerId],
    );
    return rows.map(toBackend);
  }

  async update(
    id: string,
    customerId: string | null,
    patch: {
      name?: string;
      baseUrl?: string;
      credentialCiphertext?: string | null;
      models?: string[];
      enabled?: boolean;
    },
  ): Promise<Backend | undefined> {
    const rows = await this.db.query<BackendRow>(
      `UPDATE backends
          SET name = COALESCE($3, name),
              base_url = COALESCE($4, base_url),
              credential_ciphertext = CASE WHEN $5::boolean THEN $6 ELSE credential_ciphertext END,
              models = COALESCE($7::jsonb, models),
              enabled = COALESCE($8, enabled),
              updated_at = now()
        WHERE id = $1 AND ($2::text IS NULL OR customer_id = $2)
        RETURNING ${COLUMNS}`,
      [
        id,
        customerId,
        patch.name ?? null,
        patch.baseUrl ?? null,
        patch.credentialCiphertext !== undefined,
        patch.credentialCiphertext ?? null,
        patch.models === undefined ? null : JSON.stringify(patch.models),
        patch.enabled ?? null,
      ],
    );
    return rows[0] ? toBackend(rows[0]) : undefined;
  }

  async delete(id: string, customerId: string | null): Promise<Backend | undefined> {
    const rows = await this.db.query<BackendRow>(
      `DELETE FROM backends WHERE id = $1 AND ($2::text IS NULL OR customer_id = $2) RETURNING ${COLUMNS}`,
      [id, customerId],
    );
    return rows[0] ? toBackend(rows[0]) : undefined;
  }
}
