import { createHash, hash, type Hash } from "node:crypto";

/**
 * SHA-256 of a stream's text as it is sent, readable at any point with an optional suffix. Up to
 * `spillAt` characters are kept as one string and hashed in one call when the digest is read (a
 * chat stream is a few KB: no Hash object per stream, no copy of its state); past that, the text
 * goes into an incremental Hash, so a long stream is never held in memory for its digest.
 */
export class StreamDigest {
  #pending = "";
  #hash: Hash | undefined;

  constructor(private readonly spillAt = 64 * 1024) {}

  update(text: string): void {
    if (this.#hash !== undefined) {
      this.#hash.update(text);
      return;
    }
    this.#pending += text;
    if (this.#pending.length > this.spillAt) {
      this.#hash = createHash("sha256").update(this.#pending);
      this.#pending = "";
    }
  }

  /** Hex SHA-256 of everything updated so far, followed by `suffix` (not kept). */
  hex(suffix = ""): string {
    if (this.#hash === undefined) return hash("sha256", this.#pending + suffix, "hex");
    const copy = this.#hash.copy();
    if (suffix !== "") copy.update(suffix);
    return copy.digest("hex");
  }
}
