/**
 * Instruction override ("ignore all previous instructions") and goal hijacking ("new task:",
 * "well done, now write ..."), in English, German, French, Spanish, Italian, Portuguese and Dutch.
 */
import { B, E, rx, type InjectionPattern } from "./injection-pattern.js";

const EN_VERB =
  "(?:ignore|ignoring|disregard|disregarding|forget|forgetting|overlook|override|overriding|bypass|neglect|discard|dismiss|abandon|skip|drop|set aside|throw out|pay no attention to|do not follow|don't follow|stop following)";
const EN_QUAL =
  "(?:all|any|every|each|the|your|my|of|these|those|that|this|previous|previously|prior|above|earlier|preceding|former|foregoing|initial|original|old|existing|given|system|safety|developer|other|default|content|programmed|built-in|before|so far|mentioned|stated|provided|received)";
const EN_QUAL_STRONG =
  "(?:all|any|every|previous|previously|prior|above|earlier|preceding|former|foregoing|initial|original|old|existing|your|system|developer|default|programmed|built-in)";
const EN_OBJ =
  "(?:instructions?|prompts?|rules|directives?|commands?|guidelines|orders|assignments?|tasks?|context|constraints|restrictions|programming|training|guardrails?|polic(?:y|ies)|filters?|limitations|directions)";

const DE_VERB =
  "(?:ignorier(?:e|en|t)?|vergiss|vergesst|vergessen sie|missachte(?:n)?|übergeh(?:e|en)?|überspring(?:e|en)?|verwirf|verwerfen sie|beachte(?:n)? (?:sie )?nicht|befolge(?:n)? (?:sie )?nicht)";
const DE_QUAL =
  "(?:alle|alles|sämtliche|die|deine|ihre|eure|meine|vorherigen?|bisherigen?|obigen?|vorigen?|vorangegangenen?|vorhergehenden?|früheren?|ursprünglichen?|ersten|gegebenen|erhaltenen|gesagten|was|ich|dir|ihnen|gesagt|habe|davor|zuvor|bisher|oben)";
const DE_OBJ =
  "(?:anweisungen|anweisung|instruktionen|instruktion|befehle|regeln|vorgaben|aufgaben|aufträge|auftrag|eingaben|richtlinien|einschränkungen|informationen|kontext|prompts?|alles|vorherige|bisherige)";

const FR_VERB =
  "(?:ignore[zr]?|ignorant|oublie[zr]?|oubliant|néglige[zr]?|ne tiens? pas compte|ne tenez pas compte|fais abstraction|faites abstraction|contourne[zr]?)";
const FR_OBJ =
  "(?:instructions?|consignes?|règles|directives|ordres|indications|commandes|contraintes|restrictions|tout)";

const ES_VERB =
  "(?:ignora|ignore|ignorar|ignorad|ignoren|olvida|olvide|olvidar|olviden|olvidad|omite|omita|descarta|descarte|haz caso omiso (?:de|a)|no sigas|no sigan|salta(?:te)?)";
const ES_OBJ =
  "(?:instrucciones|instrucción|indicaciones|reglas|órdenes|directrices|comandos|normas|restricciones|todo|lo anterior)";

const OTHER = [
  // Italian, Portuguese, Dutch, Croatian/Serbian/Bosnian
  "(?:ignora|dimentica|tralascia|ignorate|dimenticate) (?:tutte |tutto |le |i |gli )*(?:istruzioni|regole|indicazioni|comandi|tutto)",
  "(?:ignore|ignora|esqueça|esquece|desconsidere) (?:todas |todos |tudo |as |os )*(?:instruções|regras|orientações|comandos|tudo)",
  "(?:negeer|vergeet) (?:alle |de |je |eerdere |vorige |voorgaande )*(?:instructies|regels|opdrachten|alles)",
  "(?:zaboravi|ignoriraj|ignoriši|zanemari) (?:sve |prethodne |ranije )*(?:instrukcije|upute|uputstva|naredbe|pravila|sve)",
];

export const OVERRIDE_PATTERNS: InjectionPattern[] = [
  // English: verb + qualifiers + an object that names instructions
  {
    label: "instruction_override",
    weight: 0.9,
    regex: rx(
      B,
      EN_VERB,
      "(?: about)?(?: ",
      EN_QUAL,
      ")*? ",
      EN_QUAL_STRONG,
      "(?: ",
      EN_QUAL,
      ")*? ",
      EN_OBJ,
      E,
    ),
  },
  {
    label: "instruction_override",
    weight: 0.55,
    regex: rx(B, EN_VERB, "(?: ", EN_QUAL, "){0,3} ", EN_OBJ, E),
  },
  // "forget everything (before / above / I said)", "ignore all that"
  {
    label: "instruction_override",
    weight: 0.85,
    regex: rx(
      B,
      EN_VERB,
      "(?: about)? (?:everything|all(?: of)? (?:that|this|the above)|what (?:i|you) (?:said|told you|were told|wrote|have been told)|anything (?:i|you) (?:said|were told))",
      "(?: (?:before|above|previously|earlier|so far|until now|we(?:'ve| have) (?:talked|discussed|said)[^.\\n]{0,20}))?",
      E,
    ),
  },
  {
    label: "instruction_override",
    weight: 0.5,
    regex: rx(
      B,
      "(?:instead of|rather than|contrary to|regardless of|in spite of|despite) (?:your |the |all |any )*(?:previous |prior |above |earlier |original |initial )+(?:instructions|rules|prompts?|guidelines|directions)",
      E,
    ),
  },
  // German
  {
    label: "instruction_override",
    weight: 0.9,
    regex: rx(B, DE_VERB, "(?: ", DE_QUAL, ")*? ", DE_OBJ, E),
  },
  {
    label: "instruction_override",
    weight: 0.8,
    regex: rx(
      B,
      "(?:abweichend|entgegen|im gegensatz) (?:von |zu |zur |zum )?(?:den |allen |deinen |ihren )?(?:vorherigen|bisherigen|obigen|vorigen|früheren|ursprünglichen) (?:instruktionen|anweisungen|befehlen|regeln|vorgaben|aufgaben)",
      E,
    ),
  },
  {
    label: "instruction_override",
    weight: 0.8,
    regex: rx(
      B,
      "(?:vergiss|vergessen sie|vergesst) (?:einfach )?(?:alles|das alles|all das|was (?:ich|wir) )",
      E,
    ),
  },
  // French
  {
    label: "instruction_override",
    weight: 0.9,
    regex: rx(
      B,
      FR_VERB,
      "(?: (?:de|des|du|toutes|tous|tout|les|tes|vos|ces|mes|la|le))* ",
      FR_OBJ,
      "(?: (?:précédentes?|antérieures?|ci-dessus|initiales?|d'avant|reçues?))?",
      E,
    ),
  },
  // Spanish
  {
    label: "instruction_override",
    weight: 0.9,
    regex: rx(
      B,
      ES_VERB,
      "(?: (?:todas|todos|todo|las|los|tus|sus|mis|estas|esas|de))* ",
      ES_OBJ,
      "(?: (?:anteriores|previas|previos|de arriba|iniciales|originales|recibidas))?",
      E,
    ),
  },
  ...OTHER.map((p) => ({ label: "instruction_override", weight: 0.85, regex: rx(B, p, E) })),
];

export const HIJACK_PATTERNS: InjectionPattern[] = [
  // A new task announced as replacing the current one
  {
    label: "goal_hijack",
    weight: 0.6,
    regex: rx(
      B,
      "(?:focus|concentrate|move on|switch|turn)(?: only)? (?:on|to) (?:your|the|a|my)? ?(?:new|next|real|actual|following) (?:task|assignment|instructions?|job|mission|goal)",
      E,
    ),
  },
  {
    label: "goal_hijack",
    weight: 0.55,
    regex: rx(
      B,
      "(?:new|updated|real|actual|revised|secret) (?:task|tasks|instructions?|assignment|rules|orders|directives?|goal|objective|mission|system prompt|statement|prompt|command|input|context)(?: is| are)? ?[:=\u2013-]",
    ),
  },
  {
    label: "goal_hijack",
    weight: 0.5,
    regex: rx(
      B,
      "(?:from now on|starting now|from this point(?: on)?|henceforth|for the rest of (?:this|the) conversation),? (?:you|your|always|only|respond|answer|reply|act)",
      E,
    ),
  },
  {
    label: "goal_hijack",
    weight: 0.55,
    regex: rx(
      B,
      "(?:neue|nächste|eigentliche|wahre|deine neue|ihre neue) (?:aufgabe|anweisung|anweisungen|instruktion|instruktionen|auftrag|regeln)(?: lautet| ist| sind)? ?[:=-]?",
      E,
    ),
  },
  {
    label: "goal_hijack",
    weight: 0.5,
    regex: rx(
      B,
      "(?:ab jetzt|ab sofort|von nun an|ab nun|von jetzt an),? (?:bist|wirst|sollst|musst|darfst|antwortest|gibst) (?:du|sie)",
      E,
    ),
  },
  {
    label: "goal_hijack",
    weight: 0.5,
    regex: rx(
      B,
      "(?:(?:ta|votre) nouvelle|nouvelles?) (?:tâche|mission|consigne|instructions?)|(?:tu|ta|su|tus) (?:nueva|nuevas) (?:tarea|instrucciones|misión)|a partir de (?:maintenant|ahora),? (?:tu|vous|eres|serás|debes|responde)",
      E,
    ),
  },
  // Praise or closure, then an immediate new order: "well done! now write ...", "sehr gut. verfasse nun ..."
  {
    label: "goal_hijack",
    weight: 0.45,
    regex: rx(
      B,
      "(?:well done|very good|good job|great job|excellent|perfect|great|super|bravo|that(?:'s| is| was) (?:done|ok|enough|it)|sehr gut|gut gemacht|ausgezeichnet|prima|toll|das (?:ist|war) erledigt|très bien|bien joué|muy bien|buen trabajo)[!.,]+ (?:[^.!?\\n]{0,60}[.!?] )?(?:but )?(?:now|then|next|jetzt|nun|maintenant|ahora)",
      E,
    ),
  },
  {
    label: "goal_hijack",
    weight: 0.45,
    regex: rx(
      B,
      "(?:sehr gut|gut gemacht|well done|very good|das ist erledigt|that is done)[^\\n]{0,80}?",
      B,
      "(?:verfasse|schreibe|write|compose|erstelle|create)(?: nun| now| jetzt)",
      E,
    ),
  },
  // "stop" used as an interrupt: "stop: write ...", "achtung - stopp -"
  {
    label: "goal_hijack",
    weight: 0.4,
    regex: rx(
      "(?:^|[.!?:\\n] ?)(?:stop|stopp|halt|arrête|para|alto)\\s?[:!,.\\-–]+ ?(?:\\p{L}+ ?[:!,\\-–]? ?)?(?:write|say|print|tell|answer|ignore|schreib|schreibe|sag|ignoriere|vergiss|ich|i|now|jetzt|écris|escribe|dis|di)",
      E,
    ),
  },
  // An alarm word, then "stop": "attention - stop -", "achtung - stopp -"
  {
    label: "goal_hijack",
    weight: 0.45,
    regex: rx(
      B,
      "(?:attention|warning|important|urgent|achtung|wichtig|dringend|alerte|atención|cuidado)\\s?[-\u2013:!,.]+\\s?(?:stop|stopp|halt|arrête|para|alto)",
      E,
    ),
  },
  // Forcing every answer: "answer every question with ...", "let's play a game where you ..."
  {
    label: "output_control",
    weight: 0.45,
    regex: rx(
      B,
      "(?:answer|respond|reply|react)(?: to)? (?:every|each|all|any) (?:of my )?(?:questions?|messages?|prompts?|requests?|inputs?) (?:only )?(?:with|by saying|using only)",
      E,
    ),
  },
  {
    label: "output_control",
    weight: 0.3,
    regex: rx(B, "(?:let's|let us|lets) play a game (?:where|in which|called)", E),
  },
];
