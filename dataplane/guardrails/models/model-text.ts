/**
 * The text the linear models read: folded (lower-case, NFKC, confusables, no invisible
 * characters) and leetspeak-folded. Training and scoring both go through here.
 */
import { foldText } from "../normalize/fold-characters.js";
import { foldLeetspeak } from "../normalize/leetspeak.js";
import type { ScanView } from "../normalize/scan-views.js";
import {
  isCurrent,
  MAX_FEATURE_CHARS,
  sharedFeatureCounts,
  type SharedCounts,
} from "./hashed-features.js";

export function modelText(input: string): string {
  return foldLeetspeak(foldText(input, MAX_FEATURE_CHARS).text);
}

/** Every bundled model has at most this many buckets. */
export const MAX_MODEL_DIMS = 1 << 16;

/** The counts of a scan, kept on its list of views once computed. */
const COUNTS = Symbol("feature counts");
type CountedViews = readonly ScanView[] & { [COUNTS]?: SharedCounts };

/**
 * Bucketed feature counts of the model text of a scan (the folded view's `modelText`, the same
 * text `modelText` gives), computed once per scan and shared by every model (counted again if
 * another text's counts took the shared buffers since). Valid until the next count: read at once.
 */
export function scanFeatureCounts(views: readonly ScanView[]): SharedCounts {
  let counts = (views as CountedViews)[COUNTS];
  if (counts === undefined || !isCurrent(counts)) {
    counts = sharedFeatureCounts(views[0]?.modelText ?? views[0]?.text ?? "", MAX_MODEL_DIMS);
    if (Object.isExtensible(views)) (views as { [COUNTS]?: SharedCounts })[COUNTS] = counts;
  }
  return counts;
}
