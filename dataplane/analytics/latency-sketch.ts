import { DDSketch } from "@datadog/sketches-js";

/**
 * Latency distributions as DDSketches (relative accuracy 1%): mergeable, so the percentile of any
 * window is read from the merge of its rollup rows. Stored in a compact form of our own (only the
 * non-empty bins, 8 bytes each): the library's protobuf form writes whole 128-bin chunks (1 KiB
 * for a single value), too big for one row per minute.
 */
const RELATIVE_ACCURACY = 0.01;
const FORMAT = 1;
const HEADER = 9;

export function newLatencySketch(): DDSketch {
  return new DDSketch({ relativeAccuracy: RELATIVE_ACCURACY });
}

/** Latencies are never negative: only the positive store and the zero count are kept. */
export function serializeSketch(sketch: DDSketch): Uint8Array {
  const { bins, offset } = sketch.store;
  let used = 0;
  for (const count of bins) if (count > 0) used += 1;
  const out = Buffer.alloc(HEADER + used * 8);
  out.writeUInt8(FORMAT, 0);
  out.writeUInt32LE(Math.round(sketch.zeroCount), 1);
  out.writeUInt32LE(used, 5);
  let at = HEADER;
  bins.forEach((count, i) => {
    if (count <= 0) return;
    out.writeInt32LE(offset + i, at);
    out.writeUInt32LE(Math.round(count), at + 4);
    at += 8;
  });
  return out;
}

export function deserializeSketch(bytes: Uint8Array): DDSketch {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < HEADER || buf.readUInt8(0) !== FORMAT) throw new Error("unknown sketch format");
  const sketch = newLatencySketch();
  const zeros = buf.readUInt32LE(1);
  const used = buf.readUInt32LE(5);
  let total = zeros;
  for (let i = 0, at = HEADER; i < used && at + 8 <= buf.length; i += 1, at += 8) {
    const count = buf.readUInt32LE(at + 4);
    sketch.store.add(buf.readInt32LE(at), count);
    total += count;
  }
  sketch.zeroCount = zeros;
  sketch.count = total;
  return sketch;
}

/**
 * Merges serialised sketches into one; undefined when there is nothing to merge. Bins are summed
 * straight from the bytes (no sketch object per part), so merging thousands of rollup rows costs
 * one map update per bin.
 */
export function mergeSketches(parts: readonly (Uint8Array | null)[]): DDSketch | undefined {
  const bins = new Map<number, number>();
  let zeros = 0;
  let any = false;
  for (const part of parts) {
    if (!part || part.length < HEADER) continue;
    const buf = Buffer.from(part.buffer, part.byteOffset, part.byteLength);
    if (buf.readUInt8(0) !== FORMAT) throw new Error("unknown sketch format");
    any = true;
    zeros += buf.readUInt32LE(1);
    const used = buf.readUInt32LE(5);
    for (let i = 0, at = HEADER; i < used && at + 8 <= buf.length; i += 1, at += 8) {
      const index = buf.readInt32LE(at);
      bins.set(index, (bins.get(index) ?? 0) + buf.readUInt32LE(at + 4));
    }
  }
  if (!any) return undefined;
  const sketch = newLatencySketch();
  let total = zeros;
  for (const [index, count] of [...bins].sort((a, b) => a[0] - b[0])) {
    sketch.store.add(index, count);
    total += count;
  }
  sketch.zeroCount = zeros;
  sketch.count = total;
  return sketch;
}

/** The store's merge: a stored sketch plus an added one, serialised again. */
export function mergeSerialized(
  stored: Uint8Array | null,
  added: Uint8Array | null,
): Uint8Array | null {
  if (!added) return stored;
  if (!stored) return added;
  const merged = mergeSketches([stored, added]);
  return merged ? serializeSketch(merged) : null;
}

/** A quantile in milliseconds, rounded to 0.1 ms; null for an empty sketch. */
export function quantileMs(sketch: DDSketch | undefined, q: number): number | null {
  if (!sketch || sketch.count === 0) return null;
  return Math.round(Math.max(0, sketch.getValueAtQuantile(q)) * 10) / 10;
}
