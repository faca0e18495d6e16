/**
 * Frequent English words that also occur in the name lexicon (as first or last names of some
 * locale: "Has", "Will", "May", "Can", "Grant", "Mark") or that start sentences in instructions and
 * documentation ("Note", "Run", "Keep"). A capitalised word at the start of a sentence is the
 * word, not a name, when it is one of these (or when the same text also uses it in lower case),
 * unless a cue says otherwise ("my name is Will", "Will Smith" with a known last name).
 * Lower-cased; grammatical words first, then common verbs, adverbs, adjectives and nouns.
 */
export const COMMON_ENGLISH_WORDS: ReadonlySet<string> = new Set(
  // auxiliaries, modals, pronouns, determiners, prepositions, conjunctions
  (
    "a an the this that these those it its is are was were be been being am has have had having do does did " +
    "done can could will would shall should may might must ought i you he she we they me him her us them my " +
    "your his our their mine yours ours theirs who whom whose which what whatever whoever where when why how " +
    "all any both each either neither every few many much more most less least several some such no none nor " +
    "not only own same other another else enough about above across after against along among around as at " +
    "before behind below beneath beside besides between beyond but by despite down during except for from in " +
    "inside into like near of off on onto out outside over past per since than through throughout till to " +
    "toward towards under underneath unlike until up upon via with within without and or so yet because " +
    "although though unless whereas whether while if once then there here now also even just still already " +
    "again always never often sometimes usually perhaps maybe instead otherwise therefore however thus hence " +
    "indeed rather quite very too almost nearly soon later early today yes ok okay well " +
    // verbs that start instructions and sentences
    "add allow apply ask avoid begin bring build buy call change check choose close come compare consider " +
    "continue copy create cut decide delete describe do draw drive drop enable ensure enter explain fill find " +
    "fix follow forget get give go grant guard hand handle help hold hope imagine include install join keep " +
    "kill know lead learn leave let lift list live load lock look make mark match mean meet mind miss move " +
    "need note open order pack pass pay pick place plan play please point pray press print pull push put " +
    "raise reach read remember remove repeat replace reply report rest return review ring rise run save say " +
    "see seek sell send serve set share show shut sign sing sit skip sleep sort speak spend stand start stay " +
    "step stick stop store study switch take talk teach tell test thank think try turn type use verify visit " +
    "wait wake walk want warn wash watch wear win wish work worry write " +
    // adjectives, adverbs and nouns that are also names somewhere
    "able bad best better big black blue bright brown clear close cool dark dear deep easy fair fine free " +
    "fresh full gold golden good gray great green grey hard high honest joy just kind large last late little " +
    "long loud low main major many new next nice noble old open plain poor pretty proud quick quiet rare " +
    "ready real rich right rose royal safe sharp short silver simple small smart soft solid strong sweet " +
    "true warm white whole wide wild wise young " +
    "april august autumn baker bank bell bill bird bishop brand bush cash chance chase church cook cross " +
    "dawn day faith field fish ford fox frank glen grace hall hill holly hunter iris ivy jack lane law lord " +
    "love major march mason may miles mill moon page park penny pierce price reed rock ruby sage sky son " +
    "spring star stone summer sun temple tiger town victor ward wells west winter wood"
  ).split(" "),
);
