import type { Customer, Tier } from "../core/identity.js";
import type { Queryable } from "./database.js";

interface CustomerRow {
  id: string;
  name: string;
  tier: Tier;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = "id, name, tier, created_at, updated_at";

function toCustomer(row: CustomerRow): Customer {
  return {
    id: row.id,
    name: row.name,
    tier: row.tier,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export class CustomerRepository {
  constructor(private readonly db: Queryable) {}

  async create(input: { id: string; name: string; tier: Tier }): Promise<Customer> {
    const rows = await this.db.query<CustomerRow>(
      `INSERT INTO customers (id, name, tier) VALUES ($1, $2, $3) RETURNING ${COLUMNS}`,
      [input.id, input.name, input.tier],
    );
    return toCustomer(rows[0] as CustomerRow);
  }

  /** Creates the customer unless it exists; returns the stored one either way. */
  async ensure(input: { id: string; name: string; tier: Tier }): Promise<Customer> {
    await this.db.query(
      "INSERT INTO customers (id, name, tier) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING",
      [input.id, input.name, input.tier],
    );
    return (await this.get(input.id)) as Customer;
  }

  async get(id: string): Promise<Customer | undefined> {
    const rows = await this.db.query<CustomerRow>(
      `SELECT ${COLUMNS} FROM customers WHERE id = $1`,
      [id],
    );
    return rows[0] ? toCustomer(rows[0]) : undefined;
  }

  async list(page: { limit: number; offset: number }): Promise<Customer[]> {
    const rows = await this.db.query<CustomerRow>(
      `SELECT ${COLUMNS} FROM customers ORDER BY created_at, id LIMIT $1 OFFSET $2`,
      [page.limit, page.offset],
    );
    return rows.map(toCustomer);
  }

  async update(id: string, patch: { name?: string; tier?: Tier }): Promise<Customer | undefined> {
    const rows = await this.db.query<CustomerRow>(
      `UPDATE customers
          SET name = COALESCE($2, name), tier = COALESCE($3, tier), updated_at = now()
        WHERE id = $1
        RETURNING ${COLUMNS}`,
      [id, patch.name ?? null, patch.tier ?? null],
    );
    return rows[0] ? toCustomer(rows[0]) : undefined;
  }

  async count(): Promise<number> {
    const rows = await this.db.query<{ n: number }>("SELECT count(*)::int AS n FROM customers");
    return rows[0]?.n ?? 0;
  }
}
