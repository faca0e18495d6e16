import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";

export const LOCK_FILE = "owner.pid";

/**
 * One process per log directory: a second live process on it would interleave segments. A lock
 * file names the owner; one left by a process that is gone (or by this process) is taken over.
 */
export async function claimDirectory(dir: string): Promise<void> {
  const file = path.join(dir, LOCK_FILE);
  const owner = Number.parseInt(await readFile(file, "utf8").catch(() => ""), 10);
  if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) {
    throw new Error(
      `the audit log directory ${dir} is in use by process ${owner}; give each process its own AUDIT_SPOOL_DIR (or DATA_DIR)`,
    );
  }
  await writeFile(file, String(process.pid));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === "EPERM";
  }
}
