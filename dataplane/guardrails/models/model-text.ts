/**
 * The text the linear models read: folded (lower-case, NFKC, confusables, no invisible
 * characters) and leetspeak-folded. Training and scoring both go through here.
 */
import { foldText } from "../normalize/fold-characters.js";
import { foldLeetspeak } from "../normalize/leetspeak.js";
import type { ScanView } from "../normalize/scan-views.js";
import { featureHashes, MAX_FEATURE_CHARS } from "./hashed-features.js";

export function modelText(input: string): string {
  return foldLeetspeak(foldText(input, MAX_FEATURE_CHARS).text);
}

const hashCache = new WeakMap<readonly ScanView[], Uint32Array>();

/**
 * Feature hashes of the model text of a scan, computed once per scan and shared by every model
 * (the folded view's `modelText`: the same text `modelText` gives).
 */
export function scanFeatureHashes(views: readonly ScanView[]): Uint32Array {
  let hashes = hashCache.get(views);
  if (hashes === undefined) {
    hashes = featureHashes(views[0]?.modelText ?? views[0]?.text ?? "");
    hashCache.set(views, hashes);
  }
  return hashes;
}
