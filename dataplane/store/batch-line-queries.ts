import type { BatchLine } from "../batches/batch-types.js";
import type { Queryable } from "./database.js";

/** A line a worker is about to run or has found unfinished. */
export interface ClaimedLine extends BatchLine {
  owner: string | null;
}

/** A line as the output and error files read it. */
export interface StoredLine {
  lineNo: number;
  customId: string;
  state: string;
  result: string | null;
  isError: boolean | null;
}

/** One line's outcome, recorded by the worker that ran it. */
export interface LineResult {
  lineNo: number;
  line: string;
  isError: boolean;
}

interface LineRow {
  line_no: number;
  custom_id: string;
  body: string;
  owner: string | null;
}

interface StoredLineRow {
  line_no: number;
  custom_id: string;
  state: string;
  result: string | null;
  is_error: boolean | null;
}

function toLine(r: LineRow): ClaimedLine {
  return { lineNo: r.line_no, customId: r.custom_id, body: r.body, owner: r.owner };
}

/** Stores validated lines as `pending`, 500 rows per statement. */
export async function insertLines(tx: Queryable, id: string, lines: readonly BatchLine[]) {
  for (let i = 0; i < lines.length; i += 500) {
    const slice = lines.slice(i, i + 500);
    const params: (string | number)[] = [id];
    const values = slice.map((l) => {
      params.push(l.lineNo, l.customId, l.body);
      const n = params.length;
      return `($1, $${n - 2}, $${n - 1}, $${n})`;
    });
    await tx.query(
      `INSERT INTO batch_lines (batch_id, line_no, custom_id, body) VALUES ${values.join(", ")}`,
      params,
    );
  }
}

/** Lines left `running` by another (dead) worker: in flight when it stopped. */
export async function strandedLines(
  db: Queryable,
  id: string,
  owner: string,
): Promise<ClaimedLine[]> {
  const rows = await db.query<LineRow>(
    `SELECT line_no, custom_id, body, owner FROM batch_lines
      WHERE batch_id = $1 AND state = 'running' AND owner IS DISTINCT FROM $2
      ORDER BY line_no`,
    [id, owner],
  );
  return rows.map(toLine);
}

/**
 * Claims up to `n` pending lines for this worker, only while it still holds the batch's lease.
 * The claim commits before any line runs. (The pick is a materialised CTE: as a plain `IN`
 * subquery, SKIP LOCKED may be evaluated again per row and claim more than `n`.)
 */
export async function claimLines(
  db: Queryable,
  id: string,
  owner: string,
  now: Date,
  n: number,
): Promise<ClaimedLine[]> {
  const rows = await db.query<LineRow>(
    `WITH picked AS MATERIALIZED (
       SELECT line_no FROM batch_lines
        WHERE batch_id = $1 AND state = 'pending'
          AND EXISTS (SELECT 1 FROM batches
                       WHERE id = $1 AND lease_owner = $2 AND lease_until > $3)
        ORDER BY line_no LIMIT $4 FOR UPDATE SKIP LOCKED)
     UPDATE batch_lines l SET state = 'running', owner = $2
       FROM picked
      WHERE l.batch_id = $1 AND l.line_no = picked.line_no AND l.state = 'pending'
      RETURNING l.line_no, l.custom_id, l.body, l.owner`,
    [id, owner, now, n],
  );
  return rows.map(toLine).sort((a, b) => a.lineNo - b.lineNo);
}

/** Gives a claimed line back (the call was never sent: paused by limits, or shutting down). */
export async function unclaimLine(
  db: Queryable,
  id: string,
  owner: string,
  lineNo: number,
): Promise<void> {
  await db.query(
    `UPDATE batch_lines SET state = 'pending', owner = NULL
      WHERE batch_id = $1 AND line_no = $2 AND state = 'running' AND owner = $3`,
    [id, lineNo, owner],
  );
}

/**
 * Stores results inside `tx` and counts them on the batch, each once: only a line still
 * `running` for `owner` is recorded. Returns how many were.
 */
export async function recordLines(
  tx: Queryable,
  id: string,
  owner: string | null,
  results: readonly LineResult[],
): Promise<number> {
  let ok = 0;
  let failed = 0;
  for (const r of results) {
    const rows = await tx.query<{ line_no: number }>(
      `UPDATE batch_lines SET state = 'done', result = $4, is_error = $5
        WHERE batch_id = $1 AND line_no = $2 AND state = 'running'
          AND owner IS NOT DISTINCT FROM $3
        RETURNING line_no`,
      [id, r.lineNo, owner, r.line, r.isError],
    );
    if (rows.length === 0) continue;
    if (r.isError) failed++;
    else ok++;
  }
  if (ok + failed > 0) {
    await tx.query(
      "UPDATE batches SET completed = completed + $2, failed = failed + $3 WHERE id = $1",
      [id, ok, failed],
    );
  }
  return ok + failed;
}

/** Lines in order, a page at a time, for writing the output and error files. */
export async function linesAfter(
  db: Queryable,
  id: string,
  afterLineNo: number,
  limit: number,
): Promise<StoredLine[]> {
  const rows = await db.query<StoredLineRow>(
    `SELECT line_no, custom_id, state, result, is_error FROM batch_lines
      WHERE batch_id = $1 AND line_no > $2 ORDER BY line_no LIMIT $3`,
    [id, afterLineNo, limit],
  );
  return rows.map((r) => ({
    lineNo: r.line_no,
    customId: r.custom_id,
    state: r.state,
    result: r.result,
    isError: r.is_error,
  }));
}
