/** Below V8's large-object size (128 KiB): a string this long is allocated in the young generation. */
const CHUNK_CHARS = 32 * 1024;

/**
 * COPY text gathered row by row into pieces of at most about CHUNK_CHARS characters, each of whole
 * rows (a row longer than that is a piece of its own), for the message to the embedded store's
 * thread, which joins them into one Blob (Postgres' INSERT_IF_HEAD gathers its JSON array the same
 * way, into one Buffer: audit-chain-append.ts). No string of a whole batch is ever made, on either
 * thread:
 * - on the store's thread, one string of a batch (hundreds of KB) was allocated in the
 *   large-object space, part of the old generation, and forced a full mark-compact about twice a
 *   second under load (docs/benchmarks.md, "Issue 13, eleventh pass");
 * - on the request thread, cutting one such string into pieces first flattened it there, into a
 *   large object of its own: a fresh mapping, faulted in page by page, 0.5-2 ms of the event loop
 *   for a batch of 150-500 KB on these virtual machines (fourteenth pass).
 * Whole rows per piece keep surrogate pairs whole (COPY escapes a newline inside a value as \n).
 */
export class CopyRowPieces {
  private readonly full: string[] = [];
  private current = "";

  /** Adds one row of COPY text, its newline included. */
  add(row: string): void {
    if (this.current.length > 0 && this.current.length + row.length > CHUNK_CHARS) {
      this.full.push(this.current);
      this.current = "";
    }
    this.current += row;
  }

  /** The pieces, in order; joined, they are the rows as added. */
  pieces(): string[] {
    return this.current.length > 0 || this.full.length === 0
      ? [...this.full, this.current]
      : [...this.full];
  }
}
