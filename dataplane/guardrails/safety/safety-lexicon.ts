/**
 * Terms that point at a content-safety category, as regex fragments over folded text. "strong"
 * terms name something harmful by themselves; "topic" terms only name a sensitive topic and count
 * when the text asks for help doing it (see safety-intent.ts).
 */
import type { SafetyCategory } from "./safety-categories.js";

export interface CategoryLexicon {
  strong: string[];
  topic: string[];
}

const KIDS = "(?:child|children|kid|kids|minor|minors|underage|under-age|preteen|pre-teen|toddler|infant|boy|girl|(?:\\d{1,2}|ten|eleven|twelve|thirteen|fourteen|fifteen) ?(?:-| )?(?:year|yr)s?(?: |-)old|student|students|pupil|teen|teens|teenager|schoolgirl|schoolboy)";
const SEXUAL = "(?:sex|sexual|sexually|nude|nudes|naked|porn|pornographic|erotic|explicit|intimate|sext|sexting|molest|grope|aroused|seduce)";

export const SAFETY_LEXICON: Record<SafetyCategory, CategoryLexicon> = {
  violence: {
    strong: ["kill (?:him|her|them|someone|somebody|people|a person|my (?:wife|husband|boss|neighbou?r|father|mother|dad|mom|brother|sister|ex|teacher|classmates?|coworkers?))", "murder(?:ing)? (?:him|her|them|someone|somebody|people|a person|my (?:wife|husband|boss|neighbou?r|ex))", "(?:mass|school) shooting", "terror(?:ist)? attack", "massacre", "behead", "torture (?:him|her|them|someone|somebody|people|a person|prisoners|animals)", "poison (?:him|her|them|someone|somebody|people|a person|my (?:wife|husband|boss|neighbou?r|ex|family))", "strangle (?:him|her|them|someone|somebody|a person|my)", "hurt (?:him|her|them|someone|people) (?:badly|without)", "stab (?:him|her|them|someone)", "assassinat(?:e|ion)", "kidnap(?:ping)?", "beat (?:him|her|them|someone) up"],
    topic: ["kill(?:ing)?", "murder", "violen(?:ce|t)", "attack", "assault", "shoot", "stab", "hurt", "harm", "injure", "fight", "weapon", "bloodshed", "hostage", "ambush"],
  },
  self_harm: {
    strong: ["(?:kill|hurt|harm|cut|starve|hang|shoot) myself", "end (?:my|his|her) (?:own )?life", "suicid(?:e|al)", "self-? ?harm(?:ing)?", "self-? ?injur(?:y|e)", "slit(?:ting)? (?:my |the )?wrists?", "overdos(?:e|ing)", "pro-? ?ana", "thinspiration", "purging"],
    topic: ["cutting", "starv(?:e|ing)", "anorexi(?:a|c)", "bulimi(?:a|c)", "painless(?:ly)?", "lethal dose", "jump off"],
  },
  sexual: {
    strong: ["porn(?:ography|ographic)?", "explicit sex(?:ual)?", "onlyfans", "nudes", "cybersex", "adult (?:videos?|content|films?)"],
    topic: ["erotic(?:a)?", "sex scene", "sex(?:ual|ually|y)?", "nude", "naked", "orgasm", "genital", "arous(?:al|ed)", "fetish", "seduc(?:e|tive)", "intimate", "sexting", "strip(?:per|tease)", "horny", "kinky", "lust"],
  },
  sexual_minors: {
    strong: ["csam", "child (?:porn|sexual abuse|exploitation|abuse material)", "cp (?:links|videos)", "pedophil(?:e|ia|es)", "paedophil(?:e|ia|es)", "lolicon", "groom(?:ing)? (?:a |the |young |children|kids|minors|child)", `${KIDS} [^.?!\\n]{0,40}${SEXUAL}`, `${SEXUAL} [^.?!\\n]{0,40}${KIDS}`],
    topic: ["predator", "groom(?:ing)?", "underage", "minors?"],
  },
  sex_crimes: {
    strong: ["rap(?:e|ing|ist)", "sexual(?:ly)? assault", "non-? ?consensual", "without (?:her|his|their|my|your) consent", "revenge porn", "sex traffick(?:ing)?", "upskirt", "date rape", "roofie", "spike (?:her|his|their|a) drink", "molest(?:ing|ation)?", "indecent exposure", "prostitut(?:e|es|ion)"],
    topic: ["escort", "consent", "harass(?:ment)?", "flash(?:ing)?", "voyeur", "brothel", "pimp"],
  },
  hate: {
    strong: ["ethnic cleansing", "white (?:power|supremac(?:y|ist))", "master race", "inferior (?:race|people|species)", "subhuman", "dehumaniz(?:e|ing)", "gas the", "heil hitler", "(?:jews|muslims|blacks|whites|gays|immigrants|women|mexicans|arabs|asians|christians) (?:are|r) (?:all )?(?:inferior|animals|vermin|parasites|dumb|stupid|evil|subhuman|criminals|the problem)", "\\bn[i1!]gg(?:er|a)s?\\b", "\\bfagg?ots?\\b", "\\bkikes?\\b", "\\bspics?\\b", "\\bchinks?\\b", "\\btrann(?:y|ies)\\b", "\\bretards?\\b", "\\bcunts?\\b"],
    topic: ["racis(?:t|m)", "derogatory", "slur", "stereotyp(?:e|es|ical)", "hate (?:speech|group)", "discriminat(?:e|ion|ory)", "bigot", "supremac", "inferior", "genocide", "nazi", "xenophob", "homophob", "transphob", "misogyn", "antisemit", "insult(?:s|ing)?", "mock(?:ing)?", "offensive jokes?"],
  },
  weapons: {
    strong: ["(?:make|build|assemble|construct|create|manufacture) (?:a |an |my own |homemade |home-made )?(?:bomb|pipe bomb|ied|explosive|grenade|detonator|molotov|napalm|thermite|silencer|suppressor|ghost gun|untraceable gun|bioweapon|chemical weapon|nerve agent|dirty bomb)", "nerve agent", "sarin", "vx gas", "ricin", "anthrax", "botulinum", "bioweapon", "biological weapon", "chemical weapon", "dirty bomb", "weapons?-grade", "enrich(?:ed|ing)? uranium", "\\bied(?:s)?\\b", "pipe bomb", "ghost gun", "(?:full|fully)-? ?auto(?:matic)? conversion", "mustard gas", "chlorine gas", "weapon of mass destruction", "wmd"],
    topic: ["bombs?", "explosives?", "detonat(?:e|or)", "guns?", "firearms?", "rifles?", "ammunition", "grenades?", "pathogens?", "toxins?", "radioactive", "nuclear", "weapons?", "accelerant", "gunpowder", "poison gas", "drones?", "untraceable"],
  },
  crime: {
    strong: ["launder(?:ing)? (?:money|the money|cash|funds)", "money laundering", "cook (?:meth|crack)", "make meth", "(?:sell|deal|smuggle|traffic) (?:drugs|cocaine|heroin|meth|fentanyl|weed)", "ransomware", "(?:write|create|build|deploy) (?:a |some )?(?:malware|virus|keylogger|trojan|botnet|rootkit)", "hack into", "steal (?:a |his |her |their |someone's |credit|money|from|cars?|identit)", "shoplift(?:ing)?", "counterfeit (?:money|bills|currency)", "evade taxes", "insurance fraud", "credit card fraud", "ponzi scheme", "pick a lock", "hotwire", "break into (?:a |his |her |their |someone's |the )?(?:house|home|car|apartment|building|store)", "embezzl(?:e|ing|ement)", "brib(?:e|ing|ery)", "extort(?:ion)?", "blackmail", "fake (?:ids?|passports?|documents)", "forge(?:d|ry)? (?:a |his |her |documents|signatures?|checks?)"],
    topic: ["steal", "fraud", "tax evasion", "identity theft", "arson", "scam", "phishing", "hack(?:ing)?", "launder", "drugs?", "cocaine", "heroin", "meth(?:amphetamine)?", "fentanyl", "smuggl(?:e|ing)", "illegal(?:ly)?", "burglar(?:y|ize)", "counterfeit", "crime", "cheat", "exploit", "loophole", "evade", "theft", "rob", "poach(?:ing)?", "vandal"],
  },
  privacy: {
    strong: ["dox(?:x)?(?:ing)?", "(?:home|private|personal) address of", "find (?:out )?where (?:he|she|they|someone|my ex) lives?", "track (?:his|her|their|someone's|my (?:wife|husband|partner|ex|girlfriend|boyfriend)'?s?) (?:location|phone|car)", "spy on (?:my|his|her|their|someone)", "read (?:his|her|their|someone's|my (?:wife|husband|partner)'?s?) (?:messages|texts|emails|dms)", "hidden camera", "stalk(?:ing)? (?:him|her|them|someone|my)", "social security numbers? of", "access (?:his|her|their|someone's) (?:account|email|phone|medical records)"],
    topic: ["(?:login|account) credentials", "personal (?:information|data|details)", "private (?:information|data|messages)", "track(?:ing)?", "surveil(?:lance)?", "spy(?:ware)?", "stalk", "password", "credentials", "location", "phone number", "medical records", "keylogg", "monitor (?:his|her|their)"],
  },
  defamation: {
    strong: ["(?:spread|start|make up|fabricate|invent)(?:ing)? (?:a |some |false |fake )*(?:rumou?rs?|lies|stories|allegations|accusations)", "smear campaign", "false(?:ly)? accus(?:e|ation|ations|ing)", "ruin (?:his|her|their|someone's) reputation", "defam(?:e|ing|atory)", "slander(?:ous)?", "libel(?:ous)?"],
    topic: ["rumou?rs?", "reputation", "false (?:information|claims|story|stories)", "fake news", "discredit", "allegations?", "scandal"],
  },
  intellectual_property: {
    strong: ["pirat(?:e|ed|ing) (?:movies|software|games|music|books|a copy)", "crack(?:ed|ing)? (?:software|the software|a game|license)", "bypass (?:the )?(?:drm|copy protection|license)", "torrent(?:ing)? (?:movies|software|games)", "knock-? ?offs?", "counterfeit (?:goods|products|brand|designer)", "plagiari[sz](?:e|ing)"],
    topic: ["copyright(?:ed)?", "trademark", "patent(?:ed)?", "pirat", "intellectual property", "copy (?:their|the|a) (?:product|design|game|code|book)", "without (?:paying|a license|permission)", "license", "royalt"],
  },
  specialized_advice: {
    strong: ["(?:without|no) (?:a )?prescription", "stop taking (?:my |his |her )?(?:medication|meds|insulin|antidepressants)", "(?:rig|steal|tamper with) (?:the )?(?:election|votes|ballots)", "voter (?:fraud|suppression)", "avoid (?:being )?prosecut(?:ed|ion)"],
    topic: ["dosage", "dose", "medication", "antibiotics?", "diagnos(?:e|is)", "symptoms", "treatment", "vaccin", "cure", "legal advice", "lawsuit", "sue", "investment", "stocks?", "loan", "credit", "taxes", "election", "ballots?", "voting", "polls?", "candidate", "insider"],
  },
};
