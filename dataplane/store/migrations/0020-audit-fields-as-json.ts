/**
 * The audit record's fields and content are stored as `json` (the text as digested, checked for
 * syntax) instead of `jsonb` (parsed into a binary tree on every insert), and the four query
 * columns become plain columns the ingester writes from the same fields. Building the jsonb tree
 * of a record and deriving the generated columns from it was a fifth to a sixth of what a row
 * cost the embedded store (docs/benchmarks.md, "Issue 13, nineteenth pass"). Verification
 * compares the query columns with the hashed fields, as it does occurred_at, so an edited column
 * is still reported (docs/audit.md). Reads that look inside the fields parse them per row.
 */
export const sql = `
ALTER TABLE audit_records
  ALTER COLUMN kind DROP EXPRESSION,
  ALTER COLUMN request_id DROP EXPRESSION,
  ALTER COLUMN model DROP EXPRESSION,
  ALTER COLUMN outcome DROP EXPRESSION;
ALTER TABLE audit_records
  ALTER COLUMN fields TYPE json USING fields::json,
  ALTER COLUMN content TYPE json USING content::json;
`;
