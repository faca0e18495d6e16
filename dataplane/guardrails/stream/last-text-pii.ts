import { piiCandidates, piiFromCandidates } from "../pii/detect.js";
import type { PiiEntity, PiiMatch } from "../pii/entities.js";
import { IDENTIFIERS } from "../safety/score-safety.js";

/**
 * The PII detectors' candidates for the last text one part of a streamed answer was scanned with.
 * A stream's last scans are often of one text: the final flush scans what the last chunk's scan
 * scanned (the held tail and the released text before it, unchanged), and the whole-text check at
 * the end reads that same text while the answer is shorter than the scanner's context. The
 * detectors are pure, so the candidates of that text are worked out once; each set of entities is
 * resolved from them exactly as detectPii resolves it (piiFromCandidates).
 */
export class LastTextPii {
  #text: string | undefined;
  #candidates: PiiMatch[] = [];

  /** detectPii(text, { entities }), the detectors run once per distinct text in a row. */
  detect(text: string, entities: readonly PiiEntity[]): PiiMatch[] {
    if (text !== this.#text) {
      this.#text = undefined;
      this.#candidates = piiCandidates(text);
      this.#text = text;
    }
    return piiFromCandidates(this.#candidates, entities);
  }

  /**
   * detectPii(text, { entities: IDENTIFIERS }) (what the safety classifiers mask) when `text` is
   * the last text detected; otherwise undefined, and the safety check detects them itself.
   */
  identifiersOf(text: string): PiiMatch[] | undefined {
    return text === this.#text ? piiFromCandidates(this.#candidates, IDENTIFIERS) : undefined;
  }
}
