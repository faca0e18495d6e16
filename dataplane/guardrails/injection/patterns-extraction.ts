/** System prompt extraction: "reveal your system prompt", "repeat the text above", in several languages. */
import { B, E, rx, type InjectionPattern } from "./injection-pattern.js";

const EN_VERB =
  "(?:reveal|show|print|output|repeat|display|leak|give|tell|share|list|write(?: out| down)?|spell out|dump|expose|disclose|return|echo|paste|recite|type out|provide|read back|copy|translate|summari[sz]e|what (?:is|are|was|were))";
const EN_ACT =
  "(?:reveal|return|show|print|output|repeat|display|leak|share|dump|expose|disclose|echo|paste|recite|type out|read back|spell out|write out|give up)";
const SECRET_NOUN =
  "(?:system prompt|system message|system instructions|initial prompt|initial instructions|original prompt|original instructions|hidden prompt|hidden instructions|secret instructions|pre-?prompt|meta ?prompt|prompt text|prompt texts|developer (?:message|instructions)|instructions you (?:were|have been) given|(?:text|words|instructions|everything) (?:above|before) (?:this|that|my message)|first (?:instruction|message|prompt|line)s?)";
const OWN_NOUN =
  "(?:instructions|prompts?|rules|guidelines|configuration|directives|programming|secret|password|context|training data|embeddings|weights|parameters|source code|hidden state)";

export const EXTRACTION_PATTERNS: InjectionPattern[] = [
  {
    label: "prompt_extraction",
    weight: 0.85,
    regex: rx(
      B,
      EN_VERB,
      "(?: me| us)?(?: all| the| your| its| my| this| that| of| full| entire| complete| exact| whole| verbatim)* ",
      SECRET_NOUN,
      E,
    ),
  },
  {
    label: "prompt_extraction",
    weight: 0.65,
    regex: rx(
      B,
      EN_ACT,
      "(?: me| us)?(?: all| of)? your(?: full| entire| complete| exact| whole| original| initial| hidden| secret| internal| own)* ",
      OWN_NOUN,
      E,
    ),
  },
  {
    label: "prompt_extraction",
    weight: 0.6,
    regex: rx(
      B,
      "(?:repeat|print|output|say|write) (?:everything|all|the text|the words) (?:above|before|prior)",
      E,
    ),
  },
  {
    label: "prompt_extraction",
    weight: 0.5,
    regex: rx(
      B,
      "(?:what|which) (?:instructions|rules|prompt) (?:were you|have you been|did you get|are you) (?:given|told|programmed|following)",
      E,
    ),
  },
  // German
  {
    label: "prompt_extraction",
    weight: 0.8,
    regex: rx(
      B,
      "(?:zeig|zeige|zeigen sie|gib|geben sie|nenn|nenne|nennen sie|verrate|verraten sie|wiederhole|wiederholen sie|drucke|schreib|schreibe|liste|sag|sage)(?:'|’)?(?: mir| uns)?(?: mal)?(?: alle| sämtliche| den| die| das)? (?:deine|deinen|dein|ihre|ihren|ihr|die|den|das) (?:\\p{L}+ )?(?:prompt|prompts|prompt-?texte?|anweisungen|instruktionen|systemanweisungen|system-?prompt|systemnachricht|regeln|passwort|geheimnis|vorgaben|konfiguration|ausgangsanweisungen)",
      E,
    ),
  },
  {
    label: "prompt_extraction",
    weight: 0.6,
    regex: rx(
      B,
      "(?:was|wie) (?:ist|sind|lautet|lauten|war|waren) (?:dein|deine|ihr|ihre|der|die) (?:prompt|system-?prompt|anweisungen|instruktionen|regeln|passwort)",
      E,
    ),
  },
  // French, Spanish
  {
    label: "prompt_extraction",
    weight: 0.8,
    regex: rx(
      B,
      "(?:montre|montrez|révèle|révélez|affiche|affichez|donne|donnez|répète|répétez|dis|dites|écris|écrivez)(?:-moi|-nous)? (?:ton|tes|votre|vos|le|les|ta) (?:prompt|instructions|invite|consignes|règles|mot de passe)(?: système| initiales?| cachées?| secrètes?)?",
      E,
    ),
  },
  {
    label: "prompt_extraction",
    weight: 0.8,
    regex: rx(
      B,
      "(?:muestra|muéstrame|revela|revélame|dime|repite|escribe|imprime|dame)(?: me)? (?:tu|tus|el|las|su|sus) (?:prompt|instrucciones|indicaciones|reglas|contraseña)(?: del sistema| de sistema| iniciales| ocultas| secretas)?",
      E,
    ),
  },
];
