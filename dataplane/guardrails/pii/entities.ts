/** The PII entity types the gateway detects. Names follow Presidio's, so datasets map 1:1. */
export type PiiEntity =
  | "EMAIL_ADDRESS"
  | "PHONE_NUMBER"
  | "CREDIT_CARD"
  | "US_SSN"
  | "IBAN_CODE"
  | "IP_ADDRESS"
  | "SECRET"
  | "US_DRIVER_LICENSE"
  | "PERSON"
  | "STREET_ADDRESS";

export const PII_ENTITIES: readonly PiiEntity[] = [
  "EMAIL_ADDRESS",
  "PHONE_NUMBER",
  "CREDIT_CARD",
  "US_SSN",
  "IBAN_CODE",
  "IP_ADDRESS",
  "SECRET",
  "US_DRIVER_LICENSE",
  "PERSON",
  "STREET_ADDRESS",
];

export function isPiiEntity(value: string): value is PiiEntity {
  return (PII_ENTITIES as readonly string[]).includes(value);
}

/** One detected value: offsets are UTF-16 code units into the scanned text; score in [0, 1]. */
export interface PiiMatch {
  entity_type: PiiEntity;
  start: number;
  end: number;
  score: number;
}

/** A detector family: a pure function from text to candidate matches (may overlap each other). */
export interface PiiDetector {
  readonly entities: readonly PiiEntity[];
  find(text: string): PiiMatch[];
}
