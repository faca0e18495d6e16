import type { Database, Queryable } from "./database.js";

/** One stored file (OpenAI's File object without its wire names). */
export interface StoredFile {
  id: string;
  customerId: string;
  purpose: string;
  filename: string;
  bytes: number;
  createdAt: Date;
}

interface FileRow {
  id: string;
  customer_id: string;
  purpose: string;
  filename: string;
  bytes: string | number;
  created_at: Date;
}

const COLUMNS = "id, customer_id, purpose, filename, bytes, created_at";
/** Files are kept in chunks of this size, so no replica ever holds a whole file in memory. */
export const FILE_CHUNK_BYTES = 1024 * 1024;

function toFile(row: FileRow): StoredFile {
  return {
    id: row.id,
    customerId: row.customer_id,
    purpose: row.purpose,
    filename: row.filename,
    bytes: Number(row.bytes),
    createdAt: row.created_at,
  };
}

export type NewFile = Omit<StoredFile, "bytes">;

export interface FilePage {
  customerId: string;
  purpose: string | undefined;
  /** Newest first unless "asc". */
  order: "asc" | "desc";
  after: string | undefined;
  limit: number;
}

/**
 * Files of the Files API: metadata plus content in chunks, in the store (so every replica serves
 * every file). Every read is scoped to the caller's customer; deleted files are invisible.
 */
export class FileRepository {
  constructor(private readonly db: Database) {}

  /** Writes a whole file in one transaction: metadata and every chunk, or nothing. */
  async create(
    file: NewFile,
    chunks: AsyncIterable<Buffer> | Iterable<Buffer>,
  ): Promise<StoredFile> {
    return this.db.transaction((tx) => this.insert(tx, file, chunks));
  }

  /**
   * The same inside a caller's transaction (batch finalisation writes its files and its status
   * together). The size is counted as the chunks go by.
   */
  async insert(
    tx: Queryable,
    file: NewFile,
    chunks: AsyncIterable<Buffer> | Iterable<Buffer>,
  ): Promise<StoredFile> {
    await tx.query(
      `INSERT INTO files (id, customer_id, purpose, filename, bytes, created_at)
       VALUES ($1, $2, $3, $4, 0, $5)`,
      [file.id, file.customerId, file.purpose, file.filename, file.createdAt],
    );
    let idx = 0;
    let bytes = 0;
    for await (const chunk of chunks) {
      if (chunk.length === 0) continue;
      bytes += chunk.length;
      await tx.query("INSERT INTO file_chunks (file_id, idx, data) VALUES ($1, $2, $3)", [
        file.id,
        idx++,
        chunk,
      ]);
    }
    await tx.query("UPDATE files SET bytes = $2 WHERE id = $1", [file.id, bytes]);
    return { ...file, bytes };
  }

  async get(id: string, customerId: string): Promise<StoredFile | undefined> {
    const rows = await this.db.query<FileRow>(
      `SELECT ${COLUMNS} FROM files WHERE id = $1 AND customer_id = $2 AND deleted_at IS NULL`,
      [id, customerId],
    );
    return rows[0] ? toFile(rows[0]) : undefined;
  }

  /** A page of files, fetched with limit + 1 so the caller can tell whether there are more. */
  async list(page: FilePage): Promise<StoredFile[]> {
    const cmp = page.order === "asc" ? ">" : "<";
    const dir = page.order === "asc" ? "ASC" : "DESC";
    const rows = await this.db.query<FileRow>(
      `SELECT ${COLUMNS} FROM files f
        WHERE customer_id = $1 AND deleted_at IS NULL
          AND ($2::text IS NULL OR purpose = $2)
          AND ($3::text IS NULL OR (created_at, id) ${cmp}
               (SELECT created_at, id FROM files WHERE id = $3 AND customer_id = $1))
        ORDER BY created_at ${dir}, id ${dir}
        LIMIT $4`,
      [page.customerId, page.purpose ?? null, page.after ?? null, page.limit + 1],
    );
    return rows.map(toFile);
  }

  /** The content, chunk by chunk (one query per chunk: memory stays at one chunk). */
  async *content(id: string): AsyncGenerator<Buffer> {
    for (let idx = 0; ; idx++) {
      const rows = await this.db.query<{ data: Uint8Array }>(
        "SELECT data FROM file_chunks WHERE file_id = $1 AND idx = $2",
        [id, idx],
      );
      const row = rows[0];
      if (!row) return;
      yield Buffer.from(row.data);
    }
  }

  /** Marks the file deleted and frees its content; false when there was none to delete. */
  async delete(id: string, customerId: string, at: Date): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const rows = await tx.query<{ id: string }>(
        `UPDATE files SET deleted_at = $3
          WHERE id = $1 AND customer_id = $2 AND deleted_at IS NULL RETURNING id`,
        [id, customerId, at],
      );
      if (rows.length === 0) return false;
      await tx.query("DELETE FROM file_chunks WHERE file_id = $1", [id]);
      return true;
    });
  }
}
