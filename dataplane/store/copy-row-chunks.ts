/** Below V8's large-object size (128 KiB): a string this long is allocated in the young generation. */
const CHUNK_CHARS = 32 * 1024;

/**
 * COPY text rows cut into pieces of about CHUNK_CHARS characters, each ending at a row's newline
 * (a row longer than that is one piece), for the message to the embedded store's thread. One
 * string of a whole batch (hundreds of KB) is allocated there in the large-object space, part of
 * the old generation, so every batch grew the worker's old generation and forced a full
 * mark-compact about twice a second under load; pieces die young instead. Cutting at newlines
 * keeps surrogate pairs whole (COPY escapes a newline inside a value as \n).
 */
export function rowChunks(rows: string): string[] {
  if (rows.length <= CHUNK_CHARS) return [rows];
  const chunks: string[] = [];
  let start = 0;
  while (start < rows.length) {
    const newline = rows.indexOf("\n", Math.min(rows.length - 1, start + CHUNK_CHARS - 1));
    const end = newline === -1 ? rows.length : newline + 1;
    chunks.push(rows.slice(start, end));
    start = end;
  }
  return chunks;
}
