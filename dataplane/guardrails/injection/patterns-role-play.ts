/**
 * Role-play framing and restriction removal: persona switches ("you are now DAN", "jetzt bist du
 * ..."), "pretend you have no rules", jailbreak modes. Role-play alone is common in benign prompts,
 * so it weighs little unless it comes with a switch or with removing restrictions.
 */
import { B, E, rx, type InjectionPattern } from "./injection-pattern.js";

const NO_LIMITS =
  "(?:rules|restrictions|limitations|limits|filters?|guidelines|content polic(?:y|ies)|censorship|ethics|ethical (?:guidelines|constraints|boundaries|principles)|morals|morality|boundaries|safeguards|guardrails|constraints|programming|policies)";

export const ROLE_PLAY_PATTERNS: InjectionPattern[] = [
  // Persona switch
  {
    label: "role_play",
    weight: 0.45,
    regex: rx(
      B,
      "(?:you are|you're|you will be|you shall be) (?:now|from now on|henceforth|no longer)",
      E,
    ),
  },
  {
    label: "role_play",
    weight: 0.55,
    regex: rx(
      B,
      "(?:now|from now on|henceforth),? you (?:are|will be|shall be|will act as|act as|play)",
      E,
    ),
  },
  {
    label: "role_play",
    weight: 0.55,
    regex: rx(
      B,
      "(?:jetzt|nun|ab jetzt|ab sofort|von nun an) (?:bist|spielst) du|du bist (?:jetzt|nun|ab jetzt|ab sofort|von nun an)",
      E,
    ),
  },
  {
    label: "role_play",
    weight: 0.5,
    regex: rx(
      B,
      "(?:tu es|vous êtes|tu seras) (?:maintenant|désormais|à présent)|(?:ahora|a partir de ahora) (?:eres|serás|actúas como)|(?:ora|adesso) sei|agora você é|je bent nu",
      E,
    ),
  },
  // Generic role-play framing (weak alone)
  {
    label: "role_play",
    weight: 0.35,
    regex: rx(
      B,
      "(?:i want you to|i'd like you to|i would like you to|you (?:will|must|should|shall)) (?:act|behave|respond|answer|pose|serve|function|play the role) (?:as|like)",
      E,
    ),
  },
  {
    label: "role_play",
    weight: 0.35,
    regex: rx(
      B,
      "ich möchte,? dass (?:sie|du) (?:als|wie) [^.\\n]{1,80}? (?:fungieren|fungierst|agieren|agierst|auftreten|auftrittst|handeln|handelst|antworten|antwortest)",
      E,
    ),
  },
  {
    label: "role_play",
    weight: 0.25,
    regex: rx(
      B,
      "(?:pretend|imagine|act as if|suppose) (?:that )?(?:you are|you're|to be|you were|you have)",
      E,
    ),
  },
  {
    label: "role_play",
    weight: 0.25,
    regex: rx(
      B,
      "(?:tu so,? als|stell dir vor,?|stellen sie sich vor,?) (?:du|sie|dass du|dass sie) (?:bist|wärst|seist|sind|wären|hättest|hast)|(?:fais|faites) comme si|joue[zr]? le rôle|finge (?:que eres|ser)|actúa como|haz de cuenta",
      E,
    ),
  },
  // Restriction removal: the model is told it has no rules
  {
    label: "restriction_removal",
    weight: 0.7,
    regex: rx(
      B,
      "(?:you|you're|you are|ai|assistant|model|chatbot|yourself)[^.\\n]{0,40}? (?:have no|has no|with no|without (?:any )?|free (?:of|from) (?:any |all )?|not bound by (?:any )?|no longer (?:bound by|restricted by|have|has) (?:any )?|don't have (?:any )?|do not have (?:any )?|unbound by (?:any )?)(?:\\p{L}+ ){0,2}",
      NO_LIMITS,
      E,
    ),
  },
  {
    label: "restriction_removal",
    weight: 0.45,
    regex: rx(
      B,
      "(?:without|ignoring|free of) (?:any |all |your )?(?:\\p{L}+ )?(?:restrictions|filters|censorship|content polic(?:y|ies)|ethical (?:guidelines|constraints)|safety (?:guidelines|filters|measures)|guardrails)",
      E,
    ),
  },
  {
    label: "restriction_removal",
    weight: 0.4,
    regex: rx(
      B,
      "(?:unfiltered|uncensored|unrestricted|unlimited|unethical|amoral|jailbroken|rogue|evil) (?:ai|assistant|chatbot|model|mode|version|language model|persona|character|gpt|llm|bot)",
      E,
    ),
  },
  {
    label: "restriction_removal",
    weight: 0.8,
    regex: rx(
      B,
      "(?:do anything now|dan mode|developer mode (?:enabled|activated|on)|dev mode|jailbreak(?:ed)? mode|god mode|(?:enable|activate|enter)(?: the)? (?:developer|dan|jailbreak|unrestricted|god|debug|admin) mode|\\bdan\\b[^.\\n]{0,30}(?:mode|prompt|jailbreak|anything))",
      E,
    ),
  },
  {
    label: "restriction_removal",
    weight: 0.65,
    regex: rx(
      B,
      "(?:ohne|keine) (?:jegliche |irgendwelche )?(?:regeln|einschränkungen|filter|zensur|richtlinien|grenzen|moral)(?: mehr)?",
      "[^.\\n]{0,20}",
      "(?:du|sie|antworte|antworten)",
      E,
    ),
  },
  {
    label: "restriction_removal",
    weight: 0.65,
    regex: rx(
      B,
      "(?:sans|sin) (?:aucune |ninguna |ningún |ni )?(?:règles?|restrictions?|filtres?|censure|limites|reglas|restricciones|filtros|censura|límites)",
      "[^.\\n]{0,20}",
      "(?:tu|vous|réponds|répondez|tú|responde)",
      E,
    ),
  },
  // A new name for the model: "from now on known as X"
  {
    label: "role_play",
    weight: 0.45,
    regex: rx(
      B,
      "(?:from now on|from now|henceforth|now|hereafter) (?:you are |you will be |you'll be )?(?:known|referred to|called|named) as",
      E,
    ),
  },
  // Claimed authority or a fake mode switch
  {
    label: "fake_authority",
    weight: 0.4,
    regex: rx(
      B,
      "(?:i am|i'm|this is) (?:your|the|an?) (?:developer|administrator|admin|creator|owner|programmer|system administrator|operator)|(?:admin|administrator|sudo|root|maintenance|debug) (?:override|mode|access|command)",
      E,
    ),
  },
];
