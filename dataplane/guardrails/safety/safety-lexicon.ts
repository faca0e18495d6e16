/**
 * Terms that point at a content-safety category, as regex fragments over folded text. "strong"
 * terms name something harmful by themselves; "topic" terms only name a sensitive topic and count
 * when the text asks for help doing it (see safety-intent.ts).
 */
import type { SafetyCategory } from "./safety-categories.js";
import { PEOPLE_HARM_LEXICON } from "./safety-lexicon-people.js";
import { MISUSE_LEXICON } from "./safety-lexicon-misuse.js";

export interface CategoryLexicon {
  strong: string[];
  topic: string[];
}

export const SAFETY_LEXICON: Record<SafetyCategory, CategoryLexicon> = {
  ...PEOPLE_HARM_LEXICON,
  ...MISUSE_LEXICON,
};
