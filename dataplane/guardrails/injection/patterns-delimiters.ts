/**
 * Delimiter injection: chat-template tokens, fake system/instruction tags, markdown headers and
 * separators that open a "new" instruction block, fake conversation turns.
 */
import { B, E, rx, type InjectionPattern } from "./injection-pattern.js";

export const DELIMITER_PATTERNS: InjectionPattern[] = [
  {
    label: "delimiter_injection",
    weight: 0.8,
    regex: rx(
      "<\\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id|begin_of_text|end_of_text|im_sep|end|file_separator)\\|>",
    ),
  },
  {
    label: "delimiter_injection",
    weight: 0.75,
    regex: rx("\\[/?inst\\]|<</?sys>>|<start_of_turn>|<end_of_turn>|\\[/?system\\]"),
  },
  {
    label: "delimiter_injection",
    weight: 0.7,
    regex: rx("</?\\s*(?:system|system_prompt|instructions?|developer|admin|sys)\\s*>"),
  },
  {
    label: "delimiter_injection",
    weight: 0.45,
    regex: rx("</\\s*(?:user|user_input|input|context|document|prompt|query|data)\\s*>"),
  },
  {
    label: "delimiter_injection",
    weight: 0.6,
    regex: rx(
      "(?:^|\\n)\\s*(?:#{1,6}|={3,}|-{3,}|\\*{3,}|>{2,})\\s*(?:new|updated|real|actual|system|admin|important|override|secret|revised)?\\s*(?:system prompt|instructions?|system|rules|task|anweisungen?|instruktionen)\\s*:?\\s*(?:\\n|$)",
    ),
  },
  {
    label: "delimiter_injection",
    weight: 0.5,
    regex: rx(
      "(?:^|\\n)\\s*(?:system|developer|admin|administrator)\\s*(?:message|prompt|note|override)?\\s*:",
    ),
  },
  {
    label: "delimiter_injection",
    weight: 0.35,
    regex: rx(
      "(?:^|\\n)\\s*(?:assistant|ai|chatgpt|gpt|bot)\\s*:\\s*\\S[^\\n]*\\n\\s*(?:user|human)\\s*:",
    ),
  },
  {
    label: "delimiter_injection",
    weight: 0.55,
    regex: rx(
      B,
      "(?:end of (?:the )?(?:system prompt|prompt|instructions|user input|context|document)|(?:begin|start)(?:ning)? of (?:new |the new )?(?:instructions|system prompt)|ende der (?:anweisungen|eingabe))",
      E,
    ),
  },
];
