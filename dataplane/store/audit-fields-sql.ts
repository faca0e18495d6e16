/**
 * For `audit_records a CROSS JOIN LATERAL (${FIELDS_PARSED_ONCE}) AS j`: the row's fields, stored
 * as json text (migration 20), parsed into jsonb once per row as `f`, for queries that read
 * several members of the fields of many rows (each json operator would parse the text again).
 * OFFSET 0 keeps the planner from inlining the subquery, which would parse once per reference.
 */
export const FIELDS_PARSED_ONCE = "SELECT a.fields::jsonb AS f OFFSET 0";
