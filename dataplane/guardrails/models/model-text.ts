/**
 * The text the linear models read: folded (lower-case, NFKC, confusables, no invisible
 * characters) and leetspeak-folded. Training and scoring both go through here.
 */
import { foldText } from "../normalize/fold-characters.js";
import { foldLeetspeak } from "../normalize/leetspeak.js";
import { MAX_FEATURE_CHARS } from "./hashed-features.js";

export function modelText(input: string): string {
  return foldLeetspeak(foldText(input, MAX_FEATURE_CHARS).text);
}
