import { parseLines } from "../audit/audit-spool-lines.js";
import type { AuditRepository, PendingAuditRecord } from "./audit-repository.js";
import type { Database } from "./database.js";

const decoder = new TextDecoder();

/**
 * The records among `lines` (lines of the local audit log, UTF-8) appended to their chains in one
 * commit (AuditRepository.append); returns the lines that are not records. What
 * Database.appendAuditLines runs on its own thread, and the ingester on its own when a store
 * offers no such thread.
 */
export async function appendAuditLines(
  db: Database,
  repo: AuditRepository,
  lines: Uint8Array,
  dedupe: boolean,
): Promise<string[]> {
  const records: PendingAuditRecord[] = [];
  const unreadable: string[] = [];
  for (const line of parseLines(decoder.decode(lines))) {
    if ("record" in line) records.push(line.record);
    else unreadable.push(line.unreadable);
  }
  if (records.length > 0) await repo.append(db, records, { dedupe });
  return unreadable;
}
