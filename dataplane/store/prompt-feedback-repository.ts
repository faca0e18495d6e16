import type { Database } from "./database.js";

/** The prompt use an inference call's audit record names (details.prompt). */
export interface CallPromptUse {
  slug: string;
  version: number;
  arm: string | null;
  abTestId: string | null;
}

export interface PromptFeedback extends CallPromptUse {
  requestId: string;
  score: number;
  createdAt: Date;
  updatedAt: Date;
}

/** Feedback per arm of one A/B test. */
export interface ArmFeedback {
  arm: string;
  count: number;
  meanScore: number;
}

interface FeedbackRow {
  request_id: string;
  slug: string;
  version: number;
  arm: string | null;
  ab_test_id: string | null;
  score: number | string;
  created_at: Date;
  updated_at: Date;
}

/** Users' scores of calls that used a prompt; every query names the customer. */
export class PromptFeedbackRepository {
  constructor(private readonly db: Database) {}

  /**
   * The prompt use of one of the customer's inference calls, from its audit record; undefined when
   * the customer has no such call (another customer's request id is not found either).
   */
  async callPromptUse(customerId: string, requestId: string): Promise<CallPromptUse | undefined> {
    const rows = await this.db.query<{ prompt: Record<string, unknown> | null }>(
      `SELECT fields->'details'->'prompt' AS prompt FROM audit_records
        WHERE request_id = $2 AND customer_id = $1 AND kind = 'inference' AND fields IS NOT NULL
        ORDER BY seq DESC LIMIT 1`,
      [customerId, requestId],
    );
    const [row] = rows;
    if (!row) return undefined;
    const p = row.prompt;
    if (!p || typeof p.slug !== "string" || typeof p.version !== "number") {
      return { slug: "", version: 0, arm: null, abTestId: null };
    }
    return {
      slug: p.slug,
      version: p.version,
      arm: typeof p.arm === "string" ? p.arm : null,
      abTestId: typeof p.ab_test_id === "string" ? p.ab_test_id : null,
    };
  }

  /** Records (or replaces) the score of a call; returns the stored feedback. */
  async put(
    customerId: string,
    requestId: string,
    use: CallPromptUse,
    score: number,
  ): Promise<PromptFeedback> {
    const [row] = await this.db.query<FeedbackRow>(
      `INSERT INTO prompt_feedback (customer_id, request_id, slug, version, arm, ab_test_id, score)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (customer_id, request_id) DO UPDATE SET score = EXCLUDED.score, updated_at = now()
       RETURNING request_id, slug, version, arm, ab_test_id, score, created_at, updated_at`,
      [customerId, requestId, use.slug, use.version, use.arm, use.abTestId, score],
    );
    const r = row as FeedbackRow;
    return {
      requestId: r.request_id,
      slug: r.slug,
      version: Number(r.version),
      arm: r.arm,
      abTestId: r.ab_test_id,
      score: Number(r.score),
      createdAt: new Date(r.created_at),
      updatedAt: new Date(r.updated_at),
    };
  }

  /** Count and mean score per arm of an A/B test of a prompt. */
  async byArm(customerId: string, slug: string, abTestId: string): Promise<ArmFeedback[]> {
    const rows = await this.db.query<{ arm: string | null; n: string | number; mean: unknown }>(
      `SELECT arm, count(*) AS n, avg(score) AS mean FROM prompt_feedback
        WHERE customer_id = $1 AND slug = $2 AND ab_test_id = $3 GROUP BY arm`,
      [customerId, slug, abTestId],
    );
    return rows.map((r) => ({
      arm: r.arm ?? "(none)",
      count: Number(r.n),
      meanScore: Math.round(Number(r.mean) * 1e6) / 1e6,
    }));
  }
}
