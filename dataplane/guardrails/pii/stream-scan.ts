import type { ScanResult } from "../stream/incremental-scanner.js";
import { detectPii } from "./detect.js";
import type { PiiEntity } from "./entities.js";
import { findPlaceholders, placeholderFor, type PlaceholderMap } from "./redact.js";

/** The longest PII value the stream scanner should catch whole (PEM blocks aside). */
export const PII_STREAM_WINDOW = 256;

export interface PiiStreamPolicy {
  /** Entity types to look for, each with what to do when found. */
  actions: Partial<Record<PiiEntity, "block" | "redact">>;
  /** The request's placeholder map, so the answer reuses the request's placeholders. */
  map: PlaceholderMap;
}

/** A scan function for IncrementalScanner that finds PII in a streamed answer. */
export function piiStreamScan(policy: PiiStreamPolicy): (text: string) => ScanResult {
  const entities = Object.keys(policy.actions) as PiiEntity[];
  return (text) => ({
    spans: detectPii(text, { entities }).map((match) => {
      const action = policy.actions[match.entity_type];
      return {
        start: match.start,
        end: match.end,
        label: match.entity_type,
        block: action === "block",
        replacement: placeholderFor(
          policy.map,
          match.entity_type,
          text.slice(match.start, match.end),
        ),
      };
    }),
  });
}

/** A scan function for IncrementalScanner that puts the request's originals back into an answer. */
export function placeholderRestoreScan(map: PlaceholderMap): (text: string) => ScanResult {
  return (text) => ({
    spans: findPlaceholders(text, map).map((found) => ({
      start: found.start,
      end: found.end,
      label: "restore",
      replacement: found.original,
    })),
  });
}
