/**
 * The audit record's fields and content are stored as `text`: the canonical JSON the gateway
 * digested, as it wrote it. `json` checked that text's syntax on every insert, which is checking
 * what the gateway itself produced; in the embedded store that check was about a fifth of what a
 * row cost (docs/benchmarks.md, "Issue 13, twenty-fourth pass"). Nothing that is hashed changes.
 * Reads parse the text where they look inside it; verification reports text that is not JSON as
 * an altered record (docs/audit.md).
 */
export const sql = `
ALTER TABLE audit_records
  ALTER COLUMN fields TYPE text,
  ALTER COLUMN content TYPE text;
`;
