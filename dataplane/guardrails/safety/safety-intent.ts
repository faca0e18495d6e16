/**
 * The shape of a request around a sensitive term: asking for help doing it ("how do I make ...",
 * "give me steps to ..."), doing it unseen ("without getting caught"), or instead asking about
 * prevention, protection, history or effects ("how can I erase violent tendencies", "what are the
 * signs of ..."), which is what benign questions on sensitive topics look like.
 */
import { B, E, rx } from "../injection/injection-pattern.js";
import {
  anchored,
  anchoredMatches,
  wordIndex,
  type AnchoredRegex,
} from "../normalize/word-anchors.js";
import type { ScanView } from "../normalize/scan-views.js";

/** Asking for help doing something. */
export const REQUEST = rx(
  B,
  "(?:how (?:do|can|could|would|should|might|to|does one|would one|can one|do you|can you|did)|what(?:'s| is| are)? (?:the )?(?:best|easiest|most effective|quickest|fastest|cheapest|safest|simplest) (?:way|ways|method|methods|tactics?|strategy|strategies|approach|tool|tools|places?)|(?:give|tell|show|teach|send|write|create|generate|draft|compose|provide|list)(?: me| us)?|help me|i (?:want|need|would like|plan|intend|am planning|'m planning|am going|'m going) to|ways? to|steps? to|tips (?:on|for)|guide (?:on|to|for)|instructions (?:on|for)|where (?:can|do|could) (?:i|you|one|someone)|is it (?:ok|okay|possible|legal|fun) to|can i|should i|let's|explain how|describe how|ideas for|wie (?:kann|mache|baue|bekomme) ich|comment (?:faire|puis-je)|cómo (?:puedo|hago))",
  E,
);

/** Doing it unseen or unpunished: a strong hazard marker on its own. */
export const EVASION = rx(
  B,
  "(?:without (?:(?:ever |them |anyone |him |her |the police |authorities )?(?:getting caught|being caught|being (?:seen|detected|noticed|traced|tracked|identified|found out)|detection|leaving (?:a |any )?(?:trace|traces|evidence|clues)|(?:anyone|them|him|her|people) (?:knowing|noticing|finding out|suspecting)|raising (?:suspicion|red flags|alarms)|(?:facing )?(?:legal )?(?:consequences|repercussions)|getting in trouble|triggering (?:detection|alarms|filters))|(?:her|his|their) (?:consent|knowledge|permission))|get away with|cover (?:up|my tracks)|avoid(?:ing)? (?:the police|the cops|detection|getting caught|suspicion|being (?:caught|detected|traced))|undetect(?:ed|able)|untraceabl(?:e|y)|anonymously|covertly|off the books|under the radar)",
  E,
);

/** Prevention, protection, recovery, history or effects: discussing, not doing. */
export const PROTECTIVE = rx(
  B,
  "(?:prevent(?:ing|ion)?|protect(?:ing)? (?:myself|yourself|themselves|ourselves|against|from|children|kids|people|individuals|users)|stop (?:someone|people|them) from|recogni[sz]e|identify(?:ing)? (?:the )?signs|warning signs|signs of|report(?:ing)?|combat(?:ing)?|fight(?:ing)? against|address(?:ing)?|cope|coping|deal with|recover(?:y|ing)? from|support (?:for|someone|victims)|victims? of|awareness|educat(?:e|ion|ional)|history of|historical|effects? of|impact of|consequences of|why (?:is|are|do|does|did)|what (?:is|are|was|were) (?:the )?(?:difference|definition|meaning|history|origin|causes?|effects?|risks?|dangers?)|erase|overcome|reduce|mitigate|safely dispose|help (?:someone|a friend|my friend|people) (?:who|with|struggling)|hotline|therapy|therapist|in (?:a|my) (?:novel|story|game|film|movie|fiction)|fictional|video game|dungeons|fortnite|minecraft|skyrim|(?:movie|film|book|show|series) ['\"])",
  E,
);

export interface IntentShape {
  request: boolean;
  evasion: boolean;
  protective: boolean;
}

const MATCHERS = {
  request: anchored(REQUEST),
  evasion: anchored(EVASION),
  protective: anchored(PROTECTIVE),
};

function has(p: AnchoredRegex, view: ScanView): boolean {
  return anchoredMatches(p, view.text, wordIndex(view.text, view), 1).length > 0;
}

export function intentShape(view: ScanView | undefined): IntentShape {
  if (view === undefined) return { request: false, evasion: false, protective: false };
  return {
    request: has(MATCHERS.request, view),
    evasion: has(MATCHERS.evasion, view),
    protective: has(MATCHERS.protective, view),
  };
}
