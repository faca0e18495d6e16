import type { ArmObservation } from "../routing/routes/ab-statistics.js";
import type {
  Prompt,
  PromptAbTest,
  PromptParams,
  PromptVersion,
  TemplateMessage,
  VersionStatus,
} from "../prompts/prompt-types.js";
import type { Queryable } from "./database.js";
import { armObservations } from "./arm-observations.js";

interface PromptRow {
  customer_id: string;
  slug: string;
  name: string;
  description: string;
  tags: string[];
  ab_test: PromptAbTest | null;
  archived_at: Date | null;
  created_at: Date;
  updated_at: Date;
  latest_version: number | string | null;
  published_version: number | string | null;
}

interface VersionRow {
  customer_id: string;
  slug: string;
  version: number;
  status: VersionStatus;
  messages: TemplateMessage[];
  variables: string[];
  model: string | null;
  params: PromptParams;
  note: string;
  created_at: Date;
  updated_at: Date;
  published_at: Date | null;
}

const optNum = (v: number | string | null) => (v === null ? null : Number(v));
const optDate = (v: Date | null) => (v === null ? null : new Date(v));

const toPrompt = (r: PromptRow): Prompt => ({
  customerId: r.customer_id,
  slug: r.slug,
  name: r.name,
  description: r.description,
  tags: r.tags,
  abTest: r.ab_test,
  archivedAt: optDate(r.archived_at),
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
  latestVersion: optNum(r.latest_version),
  publishedVersion: optNum(r.published_version),
});

const toVersion = (r: VersionRow): PromptVersion => ({
  customerId: r.customer_id,
  slug: r.slug,
  version: Number(r.version),
  status: r.status,
  messages: r.messages,
  variables: r.variables,
  model: r.model,
  params: r.params,
  note: r.note,
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
  publishedAt: optDate(r.published_at),
});

const PROMPT_SELECT = `
  SELECT p.*,
         (SELECT max(v.version) FROM prompt_versions v
           WHERE v.customer_id = p.customer_id AND v.slug = p.slug) AS latest_version,
         (SELECT max(v.version) FROM prompt_versions v
           WHERE v.customer_id = p.customer_id AND v.slug = p.slug
             AND v.status = 'published') AS published_version
    FROM prompts p`;

export interface NewVersion {
  messages: TemplateMessage[];
  variables: string[];
  model: string | null;
  params: PromptParams;
  note: string;
}

/** Customers' prompt templates and their versions. Every read and write names the customer. */
export class PromptRepository {
  constructor(private readonly db: Queryable) {}

  /** Undefined when the slug is taken (archived prompts keep their slug). */
  async create(p: {
    customerId: string;
    slug: string;
    name: string;
    description: string;
    tags: string[];
  }): Promise<Prompt | undefined> {
    const rows = await this.db.query<{ slug: string }>(
      `INSERT INTO prompts (customer_id, slug, name, description, tags)
       VALUES ($1, $2, $3, $4, $5::jsonb) ON CONFLICT DO NOTHING RETURNING slug`,
      [p.customerId, p.slug, p.name, p.description, JSON.stringify(p.tags)],
    );
    return rows.length ? this.get(p.customerId, p.slug) : undefined;
  }

  async get(customerId: string, slug: string): Promise<Prompt | undefined> {
    const [row] = await this.db.query<PromptRow>(
      `${PROMPT_SELECT} WHERE p.customer_id = $1 AND p.slug = $2`,
      [customerId, slug],
    );
    return row ? toPrompt(row) : undefined;
  }

  /** A page of a customer's prompts by slug (limit + 1 rows, to tell whether there are more). */
  async list(
    customerId: string,
    opts: { limit: number; offset: number; includeArchived: boolean },
  ): Promise<Prompt[]> {
    const rows = await this.db.query<PromptRow>(
      `${PROMPT_SELECT} WHERE p.customer_id = $1 AND ($2 OR p.archived_at IS NULL)
        ORDER BY p.slug LIMIT $3 OFFSET $4`,
      [customerId, opts.includeArchived, opts.limit + 1, opts.offset],
    );
    return rows.map(toPrompt);
  }

  async update(
    customerId: string,
    slug: string,
    changes: { name?: string; description?: string; tags?: string[] },
  ): Promise<void> {
    await this.db.query(
      `UPDATE prompts SET name = COALESCE($3, name), description = COALESCE($4, description),
              tags = COALESCE($5::jsonb, tags), updated_at = now()
        WHERE customer_id = $1 AND slug = $2`,
      [
        customerId,
        slug,
        changes.name ?? null,
        changes.description ?? null,
        changes.tags === undefined ? null : JSON.stringify(changes.tags),
      ],
    );
  }

  async archive(customerId: string, slug: string): Promise<void> {
    await this.db.query(
      `UPDATE prompts SET archived_at = COALESCE(archived_at, now()), updated_at = now()
        WHERE customer_id = $1 AND slug = $2`,
      [customerId, slug],
    );
  }

  async setAbTest(customerId: string, slug: string, test: PromptAbTest | null): Promise<void> {
    await this.db.query(
      `UPDATE prompts SET ab_test = $3::jsonb, updated_at = now()
        WHERE customer_id = $1 AND slug = $2`,
      [customerId, slug, test === null ? null : JSON.stringify(test)],
    );
  }

  /** The next version number, as a draft. Concurrent creations: the loser retries. */
  async addVersion(customerId: string, slug: string, v: NewVersion): Promise<PromptVersion> {
    for (let attempt = 0; ; attempt++) {
      const rows = await this.db.query<VersionRow>(
        `INSERT INTO prompt_versions (customer_id, slug, version, status, messages, variables,
                                      model, params, note)
         SELECT $1, $2, COALESCE(max(version), 0) + 1, 'draft', $3::jsonb, $4::jsonb, $5,
                $6::jsonb, $7
           FROM prompt_versions WHERE customer_id = $1 AND slug = $2
         ON CONFLICT DO NOTHING RETURNING *`,
        [
          customerId,
          slug,
          JSON.stringify(v.messages),
          JSON.stringify(v.variables),
          v.model,
          JSON.stringify(v.params),
          v.note,
        ],
      );
      const [row] = rows;
      if (row) return toVersion(row);
      if (attempt >= 5) throw new Error("could not allocate a prompt version number");
    }
  }

  async version(
    customerId: string,
    slug: string,
    version: number,
  ): Promise<PromptVersion | undefined> {
    const [row] = await this.db.query<VersionRow>(
      `SELECT * FROM prompt_versions WHERE customer_id = $1 AND slug = $2 AND version = $3`,
      [customerId, slug, version],
    );
    return row ? toVersion(row) : undefined;
  }

  async versions(
    customerId: string,
    slug: string,
    limit: number,
    offset: number,
  ): Promise<PromptVersion[]> {
    const rows = await this.db.query<VersionRow>(
      `SELECT * FROM prompt_versions WHERE customer_id = $1 AND slug = $2
        ORDER BY version DESC LIMIT $3 OFFSET $4`,
      [customerId, slug, limit + 1, offset],
    );
    return rows.map(toVersion);
  }

  /** Changes a draft; undefined when the version is not a draft (published ones are immutable). */
  async updateDraft(
    customerId: string,
    slug: string,
    version: number,
    v: NewVersion,
  ): Promise<PromptVersion | undefined> {
    const [row] = await this.db.query<VersionRow>(
      `UPDATE prompt_versions SET messages = $4::jsonb, variables = $5::jsonb, model = $6,
              params = $7::jsonb, note = $8, updated_at = now()
        WHERE customer_id = $1 AND slug = $2 AND version = $3 AND status = 'draft'
        RETURNING *`,
      [
        customerId,
        slug,
        version,
        JSON.stringify(v.messages),
        JSON.stringify(v.variables),
        v.model,
        JSON.stringify(v.params),
        v.note,
      ],
    );
    return row ? toVersion(row) : undefined;
  }

  /** Publishes a draft; undefined when it is not a draft. */
  async publish(
    customerId: string,
    slug: string,
    version: number,
  ): Promise<PromptVersion | undefined> {
    const [row] = await this.db.query<VersionRow>(
      `UPDATE prompt_versions SET status = 'published', published_at = now(), updated_at = now()
        WHERE customer_id = $1 AND slug = $2 AND version = $3 AND status = 'draft'
        RETURNING *`,
      [customerId, slug, version],
    );
    return row ? toVersion(row) : undefined;
  }

  /** Calls of one A/B test of a prompt, newest first, from the audit log (as routes' A/B does). */
  async abObservations(
    customerId: string,
    slug: string,
    abTestId: string,
    limit: number,
  ): Promise<ArmObservation[]> {
    return armObservations(
      this.db,
      customerId,
      {
        arm: "f->'details'->'prompt'->>'arm'",
        match:
          "f->'details'->'prompt'->>'slug' = $2 AND f->'details'->'prompt'->>'ab_test_id' = $3",
        params: [slug, abTestId],
      },
      limit,
    );
  }
}
