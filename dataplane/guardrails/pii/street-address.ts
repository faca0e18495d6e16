import type { PiiDetector, PiiMatch } from "./entities.js";

export function findStreetAddresses(_text: string): PiiMatch[] {
  return [];
}

export const streetAddressDetector: PiiDetector = {
  entities: ["STREET_ADDRESS"],
  find: findStreetAddresses,
};
