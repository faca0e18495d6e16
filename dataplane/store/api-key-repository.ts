import type { ApiKeyRecord, ClassificationLevel, Role } from "../core/identity.js";
import type { Queryable } from "./database.js";

interface ApiKeyRow {
  id: string;
  customer_id: string;
  name: string;
  role: Role;
  classification_floor: ClassificationLevel;
  key_hint: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

const COLUMNS =
  "id, customer_id, name, role, classification_floor, key_hint, created_at, last_used_at, revoked_at";

function toKey(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    customerId: row.customer_id,
    name: row.name,
    role: row.role,
    classificationFloor: row.classification_floor,
    hint: row.key_hint,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

export interface NewApiKey {
  id: string;
  customerId: string;
  name: string;
  role: Role;
  classificationFloor: ClassificationLevel;
  keyHash: string;
  hint: string;
  createdBy: string | null;
}

export class ApiKeyRepository {
  constructor(private readonly db: Queryable) {}

  async create(k: NewApiKey): Promise<ApiKeyRecord> {
    const rows = await this.db.query<ApiKeyRow>(
      `INSERT INTO api_keys
         (id, customer_id, name, role, classification_floor, key_hash, key_hint, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       RETURNING ${COLUMNS}`,
      [k.id, k.customerId, k.name, k.role, k.classificationFloor, k.keyHash, k.hint, k.createdBy],
    );
    return toKey(rows[0] as ApiKeyRow);
  }

  /** Inserts the key unless one with the same hash exists (bootstrap is idempotent). */
  async ensure(k: NewApiKey): Promise<ApiKeyRecord> {
    await this.db.query(
      `INSERT INTO api_keys
         (id, customer_id, name, role, classification_floor, key_hash, key_hint, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (key_hash) DO NOTHING`,
      [k.id, k.customerId, k.name, k.role, k.classificationFloor, k.keyHash, k.hint, k.createdBy],
    );
    return (await this.findByHash(k.keyHash)) as ApiKeyRecord;
  }

  /** Finds a key by the hash of its plaintext, revoked or not. */
  async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const rows = await this.db.query<ApiKeyRow>(
      `SELECT ${COLUMNS} FROM api_keys WHERE key_hash = $1`,
      [keyHash],
    );
    return rows[0] ? toKey(rows[0]) : undefined;
  }

  /** A key, scoped to a customer unless customerId is null (admin). */
  async get(id: string, customerId: string | null): Promise<ApiKeyRecord | undefined> {
    const rows = await this.db.query<ApiKeyRow>(
      `SELECT ${COLUMNS} FROM api_keys WHERE id = $1 AND ($2::text IS NULL OR customer_id = $2)`,
      [id, customerId],
    );
    return rows[0] ? toKey(rows[0]) : undefined;
  }

  async list(filter: {
    customerId: string | null;
    limit: number;
    offset: number;
  }): Promise<ApiKeyRecord[]> {
    const rows = await this.db.query<ApiKeyRow>(
      `SELECT ${COLUMNS} FROM api_keys
        WHERE ($1::text IS NULL OR customer_id = $1)
        ORDER BY created_at, id LIMIT $2 OFFSET $3`,
      [filter.customerId, filter.limit, filter.offset],
    );
    return rows.map(toKey);
  }

  /** Revokes a key; returns it with its hash so caches can be invalidated. */
  async revoke(
    id: string,
    customerId: string | null,
  ): Promise<{ key: ApiKeyRecord; keyHash: string } | undefined> {
    const rows = await this.db.query<ApiKeyRow & { key_hash: string }>(
      `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now())
        WHERE id = $1 AND ($2::text IS NULL OR customer_id = $2)
        RETURNING ${COLUMNS}, key_hash`,
      [id, customerId],
    );
    const row = rows[0];
    return row ? { key: toKey(row), keyHash: row.key_hash } : undefined;
  }

  /** Makes the key with this hash an active admin key again; true when something changed. */
  async restoreAdmin(keyHash: string): Promise<boolean> {
    const rows = await this.db.query<{ id: string }>(
      `UPDATE api_keys SET revoked_at = NULL, role = 'admin'
        WHERE key_hash = $1 AND (revoked_at IS NOT NULL OR role <> 'admin')
        RETURNING id`,
      [keyHash],
    );
    return rows.length > 0;
  }

  async countAdmins(): Promise<number> {
    const rows = await this.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM api_keys WHERE role = 'admin' AND revoked_at IS NULL",
    );
    return rows[0]?.n ?? 0;
  }

  /** Records last use for many keys in one statement (called off the hot path). */
  async touch(ids: readonly string[], at: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.db.query(
      "UPDATE api_keys SET last_used_at = $2 WHERE id = ANY($1::text[]) AND revoked_at IS NULL",
      [ids, at],
    );
  }
}
