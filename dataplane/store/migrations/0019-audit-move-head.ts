/**
 * Moves a customer's audit chain head only if it is still where the caller last saw it, and
 * raises SQLSTATE EV409 (GUARD_REFUSED in copy-guard.ts) otherwise. The embedded store sends it,
 * with the new rows' COPY, as one simple-protocol message: one implicit transaction and one trip
 * into PGlite per ingested batch (docs/benchmarks.md, "Issue 13, fourteenth pass").
 */
export const sql = `
CREATE FUNCTION audit_move_head(p_customer text, p_from_seq bigint, p_from_hash text,
                                p_to_seq bigint, p_to_hash text) RETURNS void
LANGUAGE plpgsql AS $fn$
BEGIN
  UPDATE audit_chain_heads SET last_seq = p_to_seq, last_hash = p_to_hash
   WHERE customer_id = p_customer AND last_seq = p_from_seq AND last_hash = p_from_hash;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'audit chain head of % moved', p_customer USING ERRCODE = 'EV409';
  END IF;
END
$fn$;
`;
