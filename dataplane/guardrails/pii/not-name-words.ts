/** Capitalised words that are usually not (parts of) person names. Lower-cased. */
export const NOT_NAME_WORDS: ReadonlySet<string> = new Set(
  (
    "the a an this that these those i my your our their his her its we you he she they it is are was were be been " +
    "what whats when where why how who which can could would should will may might must shall do does did don " +
    "please hello hi hey dear thanks thank yes no not maybe if in on at for from to and but or so as of by with " +
    "about after before since until while also then there here all any each every some one two new old good great " +
    "best just only very really still even well now first last next other many much more most such own same " +
    "january february march april june july august september october november december monday tuesday " +
    "wednesday thursday friday saturday sunday today tomorrow yesterday mr mrs ms miss mx dr prof sir madam " +
    "user assistant system answer question note phone email e-mail address name date time fax mobile desk website " +
    "personal info information subject re fwd attn god christmas easter love happy ok okay sorry why let lets " +
    "north south east west northern southern eastern western central upper lower greater saint san santa " +
    "ceo cto cfo vp hr it api faq id pm am king queen prince princess duke duchess lord royal"
  ).split(" "),
);

/** A sequence ending in one of these names an organisation, a place or a street, not a person. */
export const ORGANISATION_OR_PLACE_SUFFIXES: ReadonlySet<string> = new Set(
  (
    "street st road rd avenue ave lane ln way drive dr court ct place pl square sq park parks route bridge hill " +
    "hills point cove coves cliff cliffs flat flats green village city town island islands river lake mount " +
    "mountain valley heights gardens garden terrace turnpike highway boulevard blvd plaza station port harbor " +
    "harbour fort beach bay creek springs falls crossing row walk union club orchestra band choir team " +
    "corp corporation inc ltd llc gmbh ag co company group holdings partners associates services service " +
    "solutions investments systems technologies labs studio studios media weekly daily times news post journal " +
    "magazine review university college school academy institute hospital clinic bank church museum library " +
    "republic states kingdom federation empire county province district region airport center centre hotel " +
    "restaurant cafe pleasures"
  ).split(" "),
);
