import { GUARD_REFUSED } from "../../dataplane/store/copy-guard.js";
import type { Queryable } from "../../dataplane/store/database.js";

/**
 * For COPY tests: a head row at 0, a table of items (id, note), and a guard function that moves
 * the head from one value to another or raises GUARD_REFUSED; returns the guard's statement.
 */
export async function guardedItems(db: Queryable): Promise<(from: number, to: number) => string> {
  await db.exec(`CREATE TABLE head (n int NOT NULL); INSERT INTO head VALUES (0);
                 CREATE TABLE items (id int PRIMARY KEY, note text);
                 CREATE FUNCTION move_head(f int, t int) RETURNS void LANGUAGE plpgsql AS $$
                 BEGIN
                   UPDATE head SET n = t WHERE n = f;
                   IF NOT FOUND THEN RAISE EXCEPTION 'moved' USING ERRCODE = '${GUARD_REFUSED}'; END IF;
                 END $$`);
  return (from, to) => `SELECT move_head(${from}, ${to})`;
}
