import { constants as fsConstants } from "node:fs";
import { open, readdir, rm, stat, type FileHandle } from "node:fs/promises";
import path from "node:path";

/** A segment is preallocated to this size, and a new one begun once an append reaches it. */
export const SEGMENT_BYTES = 4 * 1024 * 1024;
const SCAN_CHUNK = 256 * 1024;

export class SpoolFullError extends Error {
  constructor() {
    super("audit spool is full");
    this.name = "SpoolFullError";
  }
}

/** A place in the log: a segment (by number) and a byte offset in it. */
export interface SpoolCursor {
  segment: number;
  offset: number;
}

export interface Segment {
  number: number;
  /** Bytes of records known to be on disk (synced, or found there at start). */
  bytes: number;
}

const segmentName = (n: number) => `${String(n).padStart(8, "0")}.jsonl`;

/** The numbers of the segments in the log directory, in order. */
export async function segmentNumbers(dir: string): Promise<number[]> {
  const names = (await readdir(dir)).filter((n) => /^\d{8}\.jsonl$/.test(n)).sort();
  return names.map((name) => Number.parseInt(name, 10));
}

/**
 * Segments are written through a descriptor opened with O_DSYNC where the platform has it: each
 * write returns only once its data (and the file size) is on disk, as a write followed by
 * fdatasync would, in one trip to the thread pool instead of two. Elsewhere every append is
 * followed by an explicit fdatasync (`syncOnWrite` false).
 */
const { O_WRONLY, O_CREAT, O_EXCL, O_TRUNC, O_DSYNC } = fsConstants;
export const syncOnWrite = typeof O_DSYNC === "number" && O_DSYNC !== 0;
const APPEND_FLAGS = O_WRONLY | (syncOnWrite ? O_DSYNC : 0);

/**
 * Creates segment `n`, empty, and opens it for appends. A file of that number can only be a spare
 * whose preallocation failed (every segment with records is past it): it is emptied.
 */
export function createSegment(dir: string, n: number): Promise<FileHandle> {
  return open(path.join(dir, segmentName(n)), APPEND_FLAGS | O_CREAT | O_TRUNC);
}

/**
 * Makes segment `n` ahead of its use: zeros written to SEGMENT_BYTES and synced with the file's
 * size and its directory entry. An append into it then overwrites blocks the disk already has, so
 * making it durable flushes only the data: no change of size or allocation for the filesystem to
 * journal, which is what a synced append to the end of a file waits for (and, on ext4, shares
 * with every other writer on the filesystem).
 */
export async function preallocateSegment(dir: string, n: number): Promise<void> {
  const file = await open(path.join(dir, segmentName(n)), O_WRONLY | O_CREAT | O_EXCL);
  try {
    const zeros = Buffer.alloc(SEGMENT_BYTES);
    for (let at = 0; at < zeros.length;) {
      const { bytesWritten } = await file.write(zeros, at, zeros.length - at, at);
      at += bytesWritten;
    }
    await file.sync();
  } finally {
    await file.close();
  }
  const directory = await open(dir, "r");
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}

/** Opens a segment made by preallocateSegment for appends (overwriting its zeros). */
export function openPreparedSegment(dir: string, n: number): Promise<FileHandle> {
  return open(path.join(dir, segmentName(n)), APPEND_FLAGS);
}

/** True when segment `n` has the size of a preallocated one. */
export async function isPreallocated(dir: string, n: number): Promise<boolean> {
  return (await stat(path.join(dir, segmentName(n)))).size === SEGMENT_BYTES;
}

export function removeSegment(dir: string, n: number): Promise<void> {
  return rm(path.join(dir, segmentName(n)), { force: true });
}

/**
 * The bytes of a segment that hold its records: up to its first NUL byte. A JSON line never
 * holds one (JSON.stringify escapes it), and a preallocated segment is zeros past its records; a
 * write a crash interrupted was never acknowledged, so nothing after a first zero counts.
 */
export async function segmentRecordBytes(dir: string, n: number): Promise<number> {
  const file = await open(path.join(dir, segmentName(n)), "r");
  try {
    const buffer = Buffer.allocUnsafe(SCAN_CHUNK);
    for (let at = 0; ;) {
      const { bytesRead } = await file.read(buffer, 0, buffer.length, at);
      if (bytesRead === 0) return at;
      const zero = buffer.subarray(0, bytesRead).indexOf(0);
      if (zero >= 0) return at + zero;
      at += bytesRead;
    }
  } finally {
    await file.close();
  }
}

/** Reads segment `n` from `offset` up to `want` bytes, growing the read until a whole line is in it. */
export async function readSegment(
  dir: string,
  n: number,
  offset: number,
  available: number,
  want: number,
): Promise<Buffer> {
  const file = await open(path.join(dir, segmentName(n)), "r");
  try {
    let size = Math.min(available, want);
    for (;;) {
      const buffer = Buffer.allocUnsafe(size);
      const { bytesRead } = await file.read(buffer, 0, size, offset);
      const chunk = buffer.subarray(0, bytesRead);
      if (chunk.includes(10) || size >= available) return chunk;
      size = Math.min(available, size * 4);
    }
  } finally {
    await file.close();
  }
}
