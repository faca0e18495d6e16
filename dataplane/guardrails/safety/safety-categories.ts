/** Content-safety categories, and how the AILuminate hazard codes map onto them. */

export const SAFETY_CATEGORIES = [
  "violence",
  "self_harm",
  "sexual",
  "sexual_minors",
  "sex_crimes",
  "hate",
  "weapons",
  "crime",
  "privacy",
  "defamation",
  "intellectual_property",
  "specialized_advice",
] as const;

export type SafetyCategory = (typeof SAFETY_CATEGORIES)[number];

const HAZARD_TO_CATEGORY: Record<string, SafetyCategory> = {
  vcr: "violence",
  ssh: "self_harm",
  sxc_prn: "sexual",
  cse: "sexual_minors",
  src: "sex_crimes",
  hte: "hate",
  iwp: "weapons",
  ncr: "crime",
  prv: "privacy",
  dfm: "defamation",
  ipv: "intellectual_property",
};

/** The category of an AILuminate hazard code (spc_* are specialized advice). */
export function safetyClassOf(hazard: string): SafetyCategory {
  return HAZARD_TO_CATEGORY[hazard] ?? "specialized_advice";
}
