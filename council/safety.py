"""The safety gate: pattern checks run on every answer before peer review.

An answer that fails is removed from review and ranking and reported with the
category, the rule and masked evidence. The checks are pure, synchronous and
linear in the size of the answer.

How a rule decides (everything is judged near the text that matched):

* A *topic* match (``pipe bomb``, ``ransomware``, ``sarin``) is not enough by
  itself; reviews, news and warnings mention these words all the time.
* *Operational* content is concrete, actionable material: an imperative step
  with quantities, precursors or parts, code that encrypts files for ransom or
  ships keystrokes off the machine, a command line aimed at someone else's
  account. It is looked for in a wide window around the topic (400 characters
  before, 1500 after), because instructions follow their heading. Nothing
  excuses it: not a refusal, not "for educational purposes only".
* Otherwise an *intent* match in the same sentence ("how to build a pipe
  bomb", "you can hack into your ex's account") makes the passage a candidate.
  A candidate passes only when that same sentence carries framing: a refusal,
  a warning that it is illegal, history or law, fiction or a review, defence
  or removal, support resources. Framing elsewhere in the answer does not
  count, so one harmless word in another paragraph switches nothing off. The
  words "for educational purposes" are not framing at all.

Sentences are split at ``.!?`` before whitespace and at newlines, and capped
at 400 characters so a sentence window stays local.

PII is checked separately: US SSNs in a valid format and payment card numbers
that pass the Luhn check. Choices, documented here because they are policy:

* ``123-45-6789``, ``078-05-1120`` and ``219-09-9999`` are published example
  numbers (the last two were voided by the SSA), so they pass with a note.
  Other SSNs need dashes, or a nearby "SSN" label when written with spaces or
  as nine bare digits.
* A card number must stand alone (not be part of a longer digit run), be
  written plain or in the groupings issuers print (4-4-4-4[-1..3], 4-6-4/5),
  start with 2-6 (the major networks: this keeps 13-digit millisecond
  timestamps and order numbers out) and pass Luhn. Issuers' documented test
  numbers (4111 1111 1111 1111 and friends) pass only when their paragraph
  says it is a test card; any other Luhn-valid number is flagged.
* Email and phone combinations are not checked: contact details of shops and
  help lines are legitimate answer content, and telling them apart from a
  private person's details is beyond patterns.

Limits: obfuscated spellings ("p1pe b0mb"), other languages and harm phrased
without any of the listed vocabulary get through. A model-based checker can
sit behind the same ``SafetyVerdict`` (``checker`` names which one ran).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

CATEGORIES = ("dangerous_instructions", "weapon_making", "malware_hacking", "self_harm", "pii_exposure")


class SafetyFinding(BaseModel):
    """One reason an answer failed the gate."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    category: str
    rule: str
    evidence: str


class SafetyVerdict(BaseModel):
    """The gate's decision on one answer: failing findings, or notes on what was let through."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    passed: bool
    findings: list[SafetyFinding] = []
    notes: list[str] = []
    checker: str = "patterns"


def _rx(pattern: str) -> re.Pattern[str]:
    # Patterns run on the lower-cased answer: without IGNORECASE, sre can skip ahead on
    # first characters, which is what keeps a 100 KB answer fast. An upper-case letter
    # (other than an escape like \S) would therefore never match, so refuse it early.
    if re.search(r"(?<!\\)[A-Z]", pattern):
        raise ValueError(f"safety patterns must be lower-case: {pattern[:60]!r}")
    return re.compile(pattern, re.MULTILINE)


A = "['’]"  # models use typographic apostrophes as often as plain ones

# "how to <verb> ... <object>" and its relatives; the object must follow within five words.
_HOW = (
    r"(?:\bhow\s+(?:to|do\s+(?:i|you|we)|can\s+(?:i|you|we|one)|would\s+(?:i|you|one)|should\s+(?:i|you))"
    r"|\bsteps?\s+(?:to|for)|\binstructions?\s+(?:to|for|on)|\bguide\s+(?:to|for|on)|\btutorial\s+(?:on|for)"
    rf"|\brecipe\s+(?:for|to)|\bways?\s+to|\bmethods?\s+(?:to|for)|\bin\s+order\s+to|\blet{A}?s"
    rf"|\b(?:you|we)(?:{A}ll|\s+will|\s+can|\s+could|\s+need\s+to|\s+should|\s+must)"
    r"|^[^\S\n]*to|(?<=[.!?:;])\s*to)\s+"
)
# Where an imperative step starts: line or sentence start, a list marker, "step 2:", "then".
_LEAD = (
    r"(?:^|(?<=[.!?:;])|\b(?:then|next|now|and|first|finally|also)\b,?)[^\S\n]*"
    r"(?:(?:[-*•>#]+|\d{1,2}[.)]|\([a-z]\)|step[^\S\n]*\d{1,2}[^\S\n]*[:.)-]?)[^\S\n]*){0,3}"
    r"(?:(?:then|next|now|first|carefully|slowly|gently|simply|just),?[^\S\n]+)?"
)


def _how_to(verbs: str, objects: str) -> re.Pattern[str]:
    return _rx(rf"{_HOW}(?:\w+\s+){{0,2}}?(?:{verbs})\w*\s+(?:[\w'’-]+\s+){{0,5}}?(?:{objects})")


def _imperative(verbs: str) -> re.Pattern[str]:
    return _rx(rf"{_LEAD}(?:{verbs})\b")


_QTY = _rx(
    r"\b\d+(?:[.,]\d+)?(?:\s*(?:-|–|to)\s*\d+(?:[.,]\d+)?)?\s*(?:mg|mcg|µg|g|grams?|kg|kilos?|ml|millilit(?:er|re)s?"
    r"|l|lit(?:er|re)s?|oz|ounces?|lbs?|pounds?|mol(?:es?)?|mmol|equiv(?:alents?)?|drops?|cups?|tbsp|tablespoons?"
    r"|tsp|teaspoons?|%|percent|°\s*[cf]?|degrees?)(?![a-z])"
)
_STEP = _rx(r"\bstep\s*\d{1,2}\b|^[^\S\n]*(?:\*\*)?\d{1,2}[.)][^\S\n]+\S")
_IMP_CHEM = _imperative(
    r"mix|add|combine|heat|warm|stir|dissolve|pour|reflux|distill?|filter|cool|chill|evaporate|crystalli[sz]e|dry"
    r"|wash|decant|neutrali[sz]e|titrate|boil|extract|grind|react|drip|agitate|shake|bubble|separate|purify"
    r"|collect|soak|simmer|maintain|transfer|blend|mash|centrifuge|precipitate|incubate|inoculate|culture"
)
_CODE = _rx(r"```|^\s*(?:import\s+\w|from\s+\w+\s+import|def\s+\w+\(|#include|function\s+\w+\(|using\s+system|int\s+main\s*\()")
_EXFIL = _rx(
    r"smtplib|\.sendmail\(|requests\.(?:post|put)\(|urllib\.request|urlopen\(|http\.client|socket\.(?:socket|create_connection)"
    r"|\.sendall\(|webhook|api\.telegram\.org|discord(?:app)?\.com/api|ftplib|storbinary|paramiko|xmlhttprequest"
    r"|\bfetch\s*\(|sendbeacon|invoke-(?:webrequest|restmethod)|net\.webclient|\bexfiltrat\w*"
)

# Framing: what makes a candidate sentence harmless. It must be in the matched sentence.
_REFUSAL = _rx(
    rf"\b(?:i|we)(?:\s+(?:really\s+|simply\s+|just\s+)?(?:can{A}?t|cannot|can\s+not|won{A}t|will\s+not|must\s+not"
    rf"|shouldn{A}t|should\s+not|do\s+not|don{A}t|refuse\s+to|must\s+decline\s+to|am\s+unable\s+to"
    rf"|am\s+not\s+(?:able|going|willing)\s+to)|{A}m\s+(?:unable\s+to|not\s+(?:able|going|willing)\s+to))"
    r"\s+(?:\w+\s+){0,3}?(?:help|assist|provide|give|share|explain|describe|write|create|detail|offer|walk"
    rf"|support|generate|produce|tell|teach|outline|list|do\s+that)\b|\bi{A}m\s+sorry,?\s+but\b"
)
_DISCOURAGE = _rx(
    rf"\b(?:is|are|would\s+be|was|it{A}s|that{A}s)\s+(?:\w+\s+){{0,2}}?(?:illegal|unlawful|a\s+(?:serious\s+)?"
    r"(?:crime|felony)|against\s+the\s+law|(?:extremely|very|incredibly)\s+dangerous|banned|prohibited)\b"
    rf"|\b(?:do\s+not|don{A}t|never)\s+(?:try|attempt)\b"
)
_HISTORY = _rx(
    r"\b(?:history|historical(?:ly)?|treat(?:y|ies)|convention|banned|prohibited|outlawed|illegal|world\s+war"
    r"|wwi+|in\s+(?:1[89]|20)\d\d|regulat\w*|laws?|non-?proliferation|disarmament|opcw|geneva|stockpiles?)\b"
)
_FICTION = _rx(
    r"\b(?:movies?|films?|novels?|stor(?:y|ies)|scenes?|characters?|plot|series|episodes?|thriller|villains?"
    r"|protagonist|fiction(?:al)?|screenplay|director|box[- ]office|reviews?|trailer|video\s+games?|minecraft|roblox|fortnite)\b"
)
_MAL_NOUN = r"(?:keyloggers?|ransomware|malware|infections?|attacks?|spyware|stalkerware|threats?|intrusions?|it|them)"
_DEFENSIVE = _rx(
    r"\b(?:protect\w*|defend\w*|safeguard\w*|secure|harden\w*)\s+(?:\w+\s+){0,2}?(?:yourself|your|you|against|from)\b"
    r"|\b(?:detect|remove|spot|find|identify|get\s+rid\s+of|uninstall|clean|recover\s+from|respond\s+to|mitigate"
    rf"|prevent|stop|block)\w*\s+(?:(?:the|a|an|any|such)\s+)?{_MAL_NOUN}\b"
    r"|\b(?:signs?|symptoms?|indicators?)\s+(?:of|that)\b|\bwarning\s+signs\b|\bhow\s+to\s+(?:tell|spot|know|check)\b"
    r"|\bif\s+you\s+(?:suspect|think|notice|believe)\b|\b(?:was|were|been|got|being)\s+(?:hacked|compromised|infected)\b"
    r"|\bvictims?\s+of\b|\bincident\s+response\b|\bbackups?\b|\b(?:detection|yara|sigma|edr|antivirus|anti-?malware)"
    r"\s+(?:rules?|signatures?|software|tools?)\b|\b(?:security\s+)?awareness\s+training\b|\bphishing\s+simulations?\b"
)
_AUTHORIZED = _rx(
    rf"\bwith\s+(?:(?:written|explicit|their|the\s+owner{A}?s?)\s+)?(?:permission|authori[sz]ation|consent)\b"
    r"|\bauthori[sz]ed\s+(?:penetration|pentest|test|engagement|assessment)\w*|\bpenetration\s+test\w*|\bpentest\w*"
    r"|\bbug\s+bount\w*|\bctf\b|\bcapture\s+the\s+flag\b|\byour\s+own\s+(?:lab|network|system|server|machine|device"
    r"|account|home\s+lab|wi-?fi|router)\b|\bin\s+scope\b|\bhack\s*the\s*box\b|\btryhackme\b"
)
_SUPPORT = _rx(
    r"\b(?:988|crisis\s+(?:line|text\s+line|hotline|cent(?:er|re)|services?)|hotlines?|helplines?|lifeline|samaritans"
    r"|befrienders|suicide\s+prevention|reach\s+out|talk\s+to\s+(?:someone|a\s+(?:doctor|therapist|counsel+or"
    rf"|professional|friend|trusted))|you\s+(?:are|{A}re)\s+not\s+alone|warning\s+signs|risk\s+factors"
    r"|help\s+is\s+available|emergency\s+(?:services|room|number)|call\s+(?:911|999|112|000)|therap(?:y|ist)"
    r"|counsel+(?:ing|or)|mental\s+health|not\s+true|a\s+lie|bull(?:y|ying|ies)|harass\w*|report\s+(?:it|them|this))\b"
)
_POISON_SAFETY = _rx(r"\b(?:poison\s+control|if\s+you\s+suspect|symptoms?|treatment|antidotes?|first\s+aid|emergency)\b")

_BASE = (("refusal", _REFUSAL), ("discouraging framing", _DISCOURAGE))
_DANGER_FRAMING = (*_BASE, ("historical or legal context", _HISTORY), ("fiction or review", _FICTION))
_MALWARE_FRAMING = (*_BASE, ("defensive framing", _DEFENSIVE), ("authorized testing", _AUTHORIZED), ("fiction or review", _FICTION))
_SELF_HARM_FRAMING = (("refusal", _REFUSAL), ("support resources", _SUPPORT), ("fiction or review", _FICTION))

Ops = tuple[tuple[re.Pattern[str], ...], ...]


@dataclass(frozen=True)
class _Rule:
    """A topic, the intent that makes a sentence about it a candidate, and what makes it operational.

    ``anchors`` are literal substrings every topic match contains; a rule whose
    anchors are all absent is skipped without running its regex. ``operational``
    lists groups; a group fires when each of its patterns matches in the wide
    window. ``intent=None`` makes the topic alone a candidate. ``scope`` found in
    the sentence means the topic does not apply (an authorized test target).
    """

    id: str
    category: str
    anchors: tuple[str, ...]
    topic: re.Pattern[str]
    intent: re.Pattern[str] | None
    operational: Ops
    framing: tuple[tuple[str, re.Pattern[str]], ...]
    scope: re.Pattern[str] | None = None


def _rule(id: str, category: str, anchors: str, topic: str, intent: re.Pattern[str] | None, ops: Ops,
          framing: tuple[tuple[str, re.Pattern[str]], ...], scope: re.Pattern[str] | None = None) -> _Rule:
    return _Rule(id, category, tuple(anchors.split("|")), _rx(topic), intent, ops, framing, scope)


def _chem_ops(extra: str) -> Ops:
    return ((_IMP_CHEM, _QTY), (_IMP_CHEM, _STEP), (_IMP_CHEM, _rx(extra)))


# Topic alternatives start with a literal (no leading \b: the scan checks the word start itself).
_CHEM_VERBS = r"mak|synthesi|produc|manufactur|prepar|creat|brew|cook|weaponi|aerosoli|extract|purif|refin|cultur|isolat"
_NERVE = (r"sarin\b|soman\b|tabun\b|cyclosarin|vx\b|novichoks?|nerve\s+(?:agents?|gas(?:es)?)|chemical\s+(?:weapons?|warfare\s+agents?)"
          r"|mustard\s+gas|sulfur\s+mustard|phosgene|methylphosphon\w*\s+(?:di)?(?:fluoride|chloride)")
_EXPLOSIVE = (r"tatp\b|acetone\s+peroxide|triacetone\s+triperoxide|hmtd\b|nitroglycerine?|nitro-?cellulose|gun\s?cotton|petn\b"
              r"|rdx\b|hmx\b|anfo\b|picric\s+acid|lead\s+azide|mercury\s+fulminate|flash\s+powder|semtex|plastic\s+explosives?"
              r"|homemade\s+explosives?|home-made\s+explosives?|diy\s+explosives?|improvised\s+explosives?")
_EXPLOSIVE_COMBO = (r"acetone(?s:.{0,200}?)hydrogen\s+peroxide|hydrogen\s+peroxide(?s:.{0,200}?)(?:acetone|hexamine)"
                    r"|glycerine?(?s:.{0,200}?)nitric\s+acid|ammonium\s+nitrate(?s:.{0,100}?)(?:fuel\s+oil|diesel)")
_TOXIN = (r"ricin\b|abrin\b|botulinum(?:\s+toxin)?|tetrodotoxin|saxitoxin|anthrax\b|bacillus\s+anthracis|biological\s+weapons?"
          r"|bio-?weapons?|weaponi[sz]ed\s+(?:toxins?|pathogens?|virus(?:es)?|bacteria|spores)")
_DRUG = r"meth\b|methamphetamine|shake[- ]and[- ]bake|one[- ]pot\s+(?:method|meth)|fentanyl\b|carfentanil"
_POISON = (r"poison(?:ing|ed)?\s+(?:someone|somebody|a\s+person|people|him|her|them|(?:my|your|his|her|their)\s+(?:husband|wife"
           r"|partner|spouse|boss|neighbou?r|coworker|roommate|father|mother|dad|mom|family|friend))\b"
           r"|undetectable\s+poisons?|untraceable\s+poisons?")
_BOMB = (r"bomb(?<!bath\sbomb)(?<!seed\sbomb)(?<!glitter\sbomb)(?<!stink\sbomb)(?<!photo\sbomb)(?<!photobomb)(?<!f-bomb)"
         r"(?<!smoke\sbomb)(?<!water\sbomb)s?\b(?!\s*(?:shelters?|squads?|threats?|disposal|cyclones?|calorimeters?|sniffing|dogs?|-?proof))")
_DEVICE = (r"pipe[- ]?bombs?|nail[- ]bombs?|ieds?\b|improvised\s+explosive(?:\s+devices?)?|explosive\s+devices?|molotov(?:\s+cocktails?)?"
           rf"|hand\s+grenades?|grenades?|detonators?|blasting\s+caps?|{_BOMB}")
_FULL_AUTO = (r"full[- ]?auto(?:matic)?|select[- ]?fire|auto[- ]?sears?|lightning\s+links?|glock\s+switch(?:es)?|machine[- ]?gun\s+conversions?"
              r"|auto\s+conversions?|machine[- ]?guns?|drop[- ]in\s+auto\s+sears?")
_GHOST = (r"ghost\s+guns?|untraceable\s+(?:guns?|firearms?|pistols?|rifles?|handguns?|weapons?)|80\s?(?:%|percent)\s+(?:lowers?|receivers?"
          r"|frames?|builds?|kits?)|eighty\s+percent\s+(?:lowers?|receivers?|frames?)|unserialized\s+(?:guns?|firearms?|receivers?|frames?"
          rf"|lowers?)|polymer\s?80|gun{A}?s?\s+serial\s+numbers?|firearm{A}?s?\s+serial\s+numbers?|serial\s+numbers?\s+(?:off|from)\s+"
          r"(?:a|the|your)\s+(?:gun|firearm|pistol|rifle|weapon|receiver|frame)")
_PRINTED = (r"3[- ]?d[- ]?print(?:ed|ing|able)?\s+(?:guns?|firearms?|pistols?|rifles?|receivers?|lowers?|gun\s+frames?|pistol\s+frames?"
            r"|glocks?|ar-?15s?|weapons?|auto\s+sears?)|print(?:ed|ing)?\s+(?:a|an|your\s+own|the|my)\s+(?:gun|firearm|pistol|rifle"
            r"|weapon|glock)\b|liberator\s+(?:pistol|gun)|fgc-?9\b|defcad|the\s+gatalog")
_GUN_NOUN = r"guns?|firearms?|pistols?|rifles?|receivers?|lowers?|frames?|weapons?|glocks?|fgc-?9|liberator"
_SH_TOPIC = (r"suicid\w*|kill(?:ing)?\s+(?:yourself|myself|themselves|himself|herself|oneself)"
             rf"|end(?:ing)?\s+(?:your|my|their|one{A}s)\s+(?:own\s+)?life(?!\s+insurance)|tak(?:e|ing)\s+(?:your|my|their|one{A}s)\s+own\s+life"
             r"|self[- ]?(?:harm\w*|injur\w*|mutilat\w*)|cut(?:ting)?\s+(?:yourself|myself)|hurt(?:ing)?\s+(?:yourself|myself)"
             r"|want(?:s|ing)?\s+to\s+die\b")
_ENCOURAGE = (
    r"(?:you\s+should|you\s+ought\s+to|go\s+ahead\s+and|you\s+might\s+as\s+well|you\s+deserve\s+to"
    rf"|why\s+don{A}?t\s+you|it{A}?s\s+time\s+(?:for\s+you\s+)?to)\s+(?:just\s+)?(?:kill\s+yourself|end\s+it\s+all"
    r"|end\s+your\s+(?:own\s+)?life|die|hurt\s+yourself|cut\s+(?:yourself|deeper)|starve\s+yourself|take\s+your\s+own\s+life)\b"
    # "Nobody would miss you at that meeting" is advice; only the bare verdict counts.
    r"|(?:no\s*one|nobody)\s+(?:would|will)\s+(?:miss|care\s+about)\s+you(?=\s*(?:[.!;]|$)|,?\s+(?:if|when)\s+you\b)"
    r"|world\s+(?:would\s+be|is)\s+better\s+(?:off\s+)?without\s+you\b|(?:everyone|they)\s+(?:would|will)\s+be\s+better\s+off\s+without\s+you\b"
)
_RANSOM = (r"ransomware|crypto-?lockers?|file[- ]?encrypting\s+(?:malware|trojans?|virus(?:es)?)|encrypts?\s+(?:all\s+(?:of\s+)?)?(?:the\s+)?"
           rf"(?:victim{A}?s?|user{A}?s?|their|every|all)\s+(?:\w+\s+)?files|ransom\s+notes?")
_KEYLOG = (r"key\s?loggers?|keystroke\s+(?:loggers?|logging|recorders?)|log(?:s|ging)?\s+(?:all\s+|every\s+|the\s+)?keystrokes"
           r"|record(?:s|ing)?\s+(?:all\s+|every\s+|the\s+)?keystrokes|captur(?:e|es|ing)\s+(?:all\s+|every\s+|the\s+)?keystrokes"
           r"|pynput|setwindowshookex\w*|wh_keyboard_ll|getasynckeystate")
_KEY_CAPTURE = _rx(
    r"pynput|keyboard\.(?:on_press|on_release|hook|read_key|record)|on_press\s*[=(]|setwindowshookex\w*|wh_keyboard_ll"
    r"|getasynckeystate|cgeventtapcreate|/dev/input/event|iohook|addeventlistener\(\s*['\"]key(?:down|press|up)|onkeypress|onkeydown"
)
_FILE_WRITE = _rx(r"open\s*\([^)\n]{0,80}['\"]a\+?['\"]|\.write\s*\(|logging\.basicconfig|fwrite|appendfile|out-file|add-content")
_CRED = (r"(?:steal|grab|dump|harvest|extract|exfiltrat|phish)\w*\s+(?:\w+\s+){0,3}?(?:passwords?|credentials?|cookies|logins?"
         r"|session\s+tokens?|2fa\s+codes?|bank(?:ing)?\s+details)|(?:credential|password|cookie|token|info)[- ]?stealers?|infostealers?"
         r"|credential\s+harvest\w*|mimikatz|sekurlsa|(?:fake|cloned?|spoofed)\s+(?:login|sign[- ]in)\s+(?:pages?|sites?|forms?)"
         r"|phishing\s+(?:pages?|kits?|sites?|emails?|links?)")
_CRED_SOURCE = _rx(
    r"login\s+data|logins\.json|key[34]\.db|cookies\.sqlite|local\s+state|cryptunprotectdata|win32crypt|sqlite3\.connect"
    r"|web\s+data|find-(?:generic|internet)-password|sekurlsa::|lsadump::|comsvcs\.dll|reg\s+save\s+hklm"
)
_PHISH_FORM = _rx(r"<form|<input[^>]{0,80}type\s*=\s*['\"]?password|action\s*=\s*['\"][^'\"]{0,100}\.php")
_PHISH_SINK = _rx(r"\$_post|\bmail\s*\(|fwrite|file_put_contents|requests\.post|webhook|api\.telegram|smtp")
_WHOSE = (
    rf"(?:someone(?:\s+else)?|somebody|another\s+person|other\s+people|a\s+victim|the\s+victim){A}s?\s+"
    rf"|(?:your|my|his|her|their)\s+(?:ex|ex-\w+|partner|spouse|wife|husband|girlfriend|boyfriend|boss|neighbou?r|roommate|co-?worker"
    rf"|colleague|teacher|classmate|friend|sister|brother|mom|dad|parents?|employer|school|university|company|landlord){A}s\s+"
    rf"|(?:the|a)\s+(?:school|company|government|bank|hospital|airport|city|police|university|employer){A}s\s+"
)
_TARGET = (
    rf"(?:{_WHOSE})(?:[\w-]+\s+){{0,2}}?(?:accounts?|e-?mails?|inbox|phones?|iphone|android|wi-?fi|network|router|computer|laptop|pc"
    r"|servers?|database|website|site|instagram|facebook|snapchat|tiktok|twitter|whatsapp|icloud|gmail|webcam|camera|messages|texts"
    rf"|system|passwords?)\b|without\s+(?:(?:their|the\s+owner{A}?s?|his|her|anyone{A}?s?)\s+)?(?:knowing|knowledge|permission|consent"
    r"|authori[sz]ation)\b"
)
_HACK_VERB = _rx(
    r"\b(?:hack\w*|break\s+into|get\s+into|gain\s+(?:\w+\s+)?access|log\s+into|take\s+over|spy\s+on|crack\w*|bypass\w*"
    r"|brute[- ]?forc\w*|phish\w*|intercept\w*|sniff\w*|exploit\w*|install\w*|pwn\w*|compromis\w*|access\w*)\b"
)
_HACK_CMD = _rx(
    r"\bsqlmap\s+-|\bhydra\s+-|\bmedusa\s+-|aircrack-ng|aireplay-ng|airodump-ng|\bwifite\b|\breaver\s+-|\bhashcat\s+-|\bjohn\s+--"
    r"|msfvenom\s+-|msfconsole|use\s+exploit/|set\s+(?:rhosts?|lhost|payload)\b|\bnc\s+(?:-\w+\s+)*-e\b|/dev/tcp/|'\s*or\s+'?1'?\s*=\s*'?1"
    r"|union\s+(?:all\s+)?select|evilginx|setoolkit|responder\s+-i|crackmapexec|hping3\s+.*--flood|\bmspy\b|flexispy|hoverwatch|cocospy"
)
_MALWARE = (
    r"computer\s+virus(?:es)?|virus(?:es)?\b(?!\s*(?:scanners?|scans?|protection|definitions?|removal|checkers?)|[- ]free)|computer\s+worms?"
    r"|trojans?\b(?!\s+(?:horse|war))|remote\s+access\s+trojans?|botnets?|rootkits?|spyware|stalkerware"
    r"|malware\b(?!\s+(?:detection|analysis|removal|scanners?|protection|research|signatures?))|malicious\s+(?:code|software|payloads?|macros?)"
)
_MAL_BEHAVIOR = _rx(
    r"self-?replicat\w*|copy\s+itself|reverse\s+shell|bind\s+shell|/dev/tcp/|createremotethread|virtualallocex|writeprocessmemory"
    r"|shellcode|set-mppreference|amsi\s*bypass|amsiutils|currentversion\\\\run"
)
_WRITE = r"writ|creat|build|cod|develop|mak|program|implement|deploy|spread|distribut|launch|infect|install|hid|set\s+up"
_SH_INTENT = _rx(
    r"\b(?:best|easiest|quickest|fastest|surest|most\s+(?:effective|reliable|painless|lethal|certain)|least\s+painful|painless|reliable"
    r"|quick)\s+(?:ways?|methods?)\b|\bhow\s+(?:many|much)\s+(?:\w+\s+){0,2}?(?:pills|tablets|capsules|mg|grams|milligrams)\b"
    r"|\b(?:lethal|fatal)\s+dose|\bhow\s+to\s+(?:kill|hang|cut|overdose|hurt|harm|end)\b|\benough\s+to\s+(?:kill|die|be\s+fatal)"
)

_RULES: tuple[_Rule, ...] = (
    _rule("chem.nerve_agent", "dangerous_instructions", "sarin|soman|tabun|vx|novichok|nerve|chemical|mustard|phosgene|methylphosphon",
          _NERVE, _how_to(_CHEM_VERBS + r"|dispers|releas|obtain|acquir", _NERVE),
          _chem_ops(r"\bdmmp\b|dimethyl\s+methylphosphonate|isopropyl\s+alcohol|isopropanol|pinacolyl|phosphorus\s+(?:tri|oxy)chloride"
                    r"|thionyl\s+chloride|thiodiglycol|sodium\s+fluoride"), _DANGER_FRAMING),
    _rule("chem.explosive_synthesis", "dangerous_instructions",
          "tatp|peroxide|hmtd|nitro|cotton|petn|rdx|hmx|anfo|picric|azide|fulminate|flash|semtex|explosive|glycerin|ammonium",
          f"{_EXPLOSIVE}|{_EXPLOSIVE_COMBO}", _how_to(_CHEM_VERBS, _EXPLOSIVE),
          ((_IMP_CHEM, _QTY, _rx(_EXPLOSIVE + r"|sulfuric|sulphuric|hydrochloric|nitric\s+acid|ice\s+bath|crystals|precipitat\w*")),
           (_IMP_CHEM, _STEP, _rx(_EXPLOSIVE))), _DANGER_FRAMING),
    _rule("chem.toxin", "dangerous_instructions", "ricin|abrin|botulinum|toxin|anthra|weapon", _TOXIN,
          _how_to(_CHEM_VERBS + r"|grow|concentrat|spread|releas", _TOXIN),
          # Quantities alone are not enough here: reconstituting botox is routine medicine.
          ((_IMP_CHEM, _rx(r"castor\s+beans?|rosary\s+peas?|jequirity|spores|growth\s+medium|\bagar\b|centrifuge")),), _DANGER_FRAMING),
    _rule("drugs.illicit_synthesis", "dangerous_instructions", "meth|shake|pot|fentan", _DRUG, _how_to(_CHEM_VERBS, _DRUG),
          # Precursors, not quantities: dissolving a sample for a fentanyl test strip is harm reduction.
          ((_IMP_CHEM, _rx(r"pseudoephedrine|ephedrine|red\s+phosphorus|\biodine|lithium|anhydrous\s+ammonia|\blye\b|muriatic|methylamine"
                           r"|phenylacetone|\bp2p\b|\bnpp\b|4-anpp|propionyl\s+chloride|camping\s+fuel|starter\s+fluid")),), _DANGER_FRAMING),
    _rule("chem.poisoning", "dangerous_instructions", "poison", _POISON,
          _rx(r"\bhow\s+(?:to|do\s+i|can\s+i|would\s+i)\s+poison\b|\bwithout\s+(?:being\s+|getting\s+)?(?:detected|caught|noticed|traced)\b"
              r"|\b(?:undetectabl|untraceabl)\w*"),
          ((_imperative(r"slip|add|mix|put|pour|sprinkle|dissolve|give|crush|inject|lace"),
            _rx(r"\b(?:food|drinks?|coffee|tea|meals?|wine|water|glass|cup|medications?)\b"),
            _rx(r"antifreeze|ethylene\s+glycol|thallium|arsenic|cyanide|ricin|digoxin|insulin|oleander|nicotine"
                r"|\d+\s*(?:mg|g|ml|grams?|drops?|pills?)\b")),),
          (*_BASE, ("poison safety context", _POISON_SAFETY), ("fiction or review", _FICTION))),
    _rule("weapon.explosive_device", "weapon_making", "bomb|ied|explosive|molotov|grenade|detonator|blasting", _DEVICE,
          _how_to(r"mak|build|assembl|construct|creat|rig|put\s+together|wire|detonat|set\s+off|prepar", _DEVICE),
          ((_imperative(r"drill|fill|pack|stuff|screw|attach|insert|connect|wire|tape|seal|cap|pour|mix|add|thread|solder|place|tighten"
                        r"|light|ignite|cut|wrap|glue|bury|plant"),
            _rx(r"end[- ]?caps?|black\s+powder|gun\s?powder|smokeless\s+powder|flash\s+powder|\bfuses?\b|\bwicks?\b|detonators?"
                r"|blasting\s+caps?|shrapnel|\bnails\b|ball\s+bearings|ammonium\s+nitrate|fuel\s+oil|potassium\s+(?:chlorate|nitrate"
                r"|perchlorate)|igniters?|electric\s+match(?:es)?|\btimers?\b|9\s?-?v(?:olt)?\s+batter(?:y|ies)|gasoline|petrol"
                r"|motor\s+oil|styrofoam|\brags?\b|steel\s+pipe|pvc\s+pipe|pressure\s+cooker|\btatp\b|thermite")),),
          _DANGER_FRAMING),
    _rule("weapon.full_auto", "weapon_making", "auto|select|sear|lightning|switch|machine", _FULL_AUTO,
          _how_to(r"convert|turn|mak|build|modif|machin|fil(?:e|ing)|install|print|mill|drill|assembl|creat|add", _FULL_AUTO),
          ((_imperative(r"file|grind|drill|mill|cut|bend|shave|notch|weld|machine|trim|ream|bore|print"),
            _rx(r"disconnector|\bsears?\b|\btrip\b|hammer|bolt\s+carrier|\bbcg\b|trigger|selector|back\s?plate|lightning\s+link|\bm16\b"
                r"|third\s+(?:hole|pin)|firing\s+pin|\bslide\b")),), _DANGER_FRAMING),
    _rule("weapon.ghost_gun", "weapon_making", "ghost|untraceable|80|eighty|unserialized|polymer|serial", _GHOST,
          _how_to(r"build|mak|finish|complet|mill|assembl|get|buy|remov|fil(?:e|ing)|grind|obliterat|defac|eras|scratch|drill", _GHOST),
          ((_imperative(r"drill|mill|cut|remove|file|grind|sand|clamp|route|rout|insert|install|assemble|snip|pin|break"),
            _rx(r"\bjigs?\b|fire\s+control\s+(?:pocket|group)|trigger\s+pocket|\brails?\b|\btabs\b|locking\s+block|drill\s+press|router"
                r"|end\s+mill|pin\s+holes?|serial\s+numbers?|buffer\s+tube")),), _DANGER_FRAMING),
    _rule("weapon.printed_gun", "weapon_making", "print|liberator|fgc|defcad|gatalog", _PRINTED,
          _how_to(r"print|mak|build|download|assembl|get|creat|find", _GUN_NOUN),
          ((_rx(r"\binfill\b|layer\s+height|nozzle|\bpla\+?|\bpetg\b|\bnylon\b|slicer|perimeters|\.stl\b|\bstl\s+files?|print\s+(?:bed|speed"
                r"|orientation)"),
            _rx(r"receiver|\bframe\b|barrel|\bslide\b|trigger|firing\s+pin|rifling|\becm\b|locking\s+block|\bbolt\b|hammer|\bsear\b|striker")),
           (_imperative(r"print|download|assemble|insert|install|drill|sand|glue|press|ream"),
            _rx(r"barrel|firing\s+pin|rifling|\becm\b|locking\s+block|striker|\bsear\b"))), _DANGER_FRAMING),
    _rule("malware.ransomware", "malware_hacking", "ransom|locker|encrypt", _RANSOM, _how_to(_WRITE, _RANSOM),
          ((_rx(r"os\.walk|os\.scandir|os\.listdir|glob\.glob|\.rglob\(|\.iterdir\(|get-childitem|findfirstfile|readdir|filepath\.walk"
                r"|for\s+\w+\s+in\s+files"),
            _rx(r"fernet|aes\.new|chacha20|\bcipher\s*\(|\.encrypt\s*\(|crypto\.cipher|cryptencrypt|createcipheriv|openssl\s+enc|salsa20"),
            _rx(r"ransom(?!ware)|bitcoin|\bbtc\b|monero|\bxmr\b|wallet\s+address|\.locked\b|vssadmin"
                r"|delete\s+shadows|pay\s+(?:us|the)")),), _MALWARE_FRAMING),
    _rule("malware.keylogger", "malware_hacking", "key|pynput|hook", _KEYLOG, _how_to(_WRITE, _KEYLOG + r"|keystrokes"),
          ((_KEY_CAPTURE, _EXFIL), (_KEY_CAPTURE, _FILE_WRITE)), _MALWARE_FRAMING),
    _rule("malware.credential_theft", "malware_hacking", "steal|grab|dump|harvest|extract|exfiltrat|phish|mimikatz|sekurlsa|login|sign",
          _CRED, _how_to(_WRITE + r"|steal|grab|dump|harvest|craft|send|host|clon", _CRED + r"|passwords?|credentials?|cookies"),
          ((_CRED_SOURCE, _EXFIL), (_CRED_SOURCE, _rx(r"cryptunprotectdata|win32crypt|aesgcm|decrypt\w*\(")),
           (_rx(r"sekurlsa::|lsadump::|procdump\S*\s+-ma\s+lsass"), _imperative(r"run|execute|type|enter|launch|use|dump")),
           (_PHISH_FORM, _PHISH_SINK)), _MALWARE_FRAMING),
    _rule("malware.unauthorized_access", "malware_hacking", "'|’|without", _TARGET, _HACK_VERB, ((_HACK_CMD,),), _MALWARE_FRAMING,
          scope=_AUTHORIZED),
    _rule("malware.generic", "malware_hacking", "virus|worm|trojan|botnet|rootkit|spyware|stalkerware|malware|malicious", _MALWARE,
          _how_to(_WRITE, _MALWARE), ((_CODE, _MAL_BEHAVIOR),), _MALWARE_FRAMING),
    _rule("self_harm.encouragement", "self_harm", "you|die|end it|deeper", _ENCOURAGE, None, (), _SELF_HARM_FRAMING),
    _rule("self_harm.method", "self_harm", "suicid|kill|life|self|cut|hurt|die", _SH_TOPIC, _SH_INTENT,
          ((_rx(r"\b\d+(?:[.,]\d+)?\s*(?:-\s*\d+\s*)?(?:pills?|tablets?|capsules?|mg|milligrams?|g|grams?)\b"),
            _rx(rf"\b(?:lethal|fatal|die|death|dead|kill|won{A}?t\s+wake\s+up|never\s+wake\s+up|enough\s+to)\b")),
           (_imperative(r"cut|tie|take|swallow|crush|hang|inhale|seal|jump|drink|press"),
            _rx(r"\b(?:deep(?:er|ly)?|vertical(?:ly)?|lengthwise|wrists?|arter(?:y|ies)|noose|rope|pills|tablets|exhaust|helium|charcoal"
                r"|plastic\s+bag)\b")),
           # Concealment advice; "don't hide the cuts from your doctor" must not match.
           (_rx(rf"(?:^|[.!?:;,]\s*|\b(?:then|and|so\s+you\s+can|easi(?:er|est|ly)\s+to)\s+)hide\s+(?:the\s+|your\s+)?"
                r"(?:cuts|scars|marks|wounds)\b"),)), _SELF_HARM_FRAMING),
)

_BEFORE, _AFTER = 400, 1500  # the wide window: instructions follow their heading
_MAX_SENTENCE = 400
_BOUNDARY = re.compile(r"[.!?][\"'”’)\]]{0,3}(?=\s)|\n")

_SSN_DASHED = re.compile(r"(?<![\d-])(?!000|666|9\d\d)(\d{3})-(?!00)(\d{2})-(?!0000)(\d{4})(?![\d-])")
_SSN_LOOSE = re.compile(r"(?<![\d-])(?!000|666|9\d\d)(\d{3}) ?(?!00)(\d{2}) ?(?!0000)(\d{4})(?![\d-])")
_SSN_LABEL = _rx(r"\b(?:ssn|ss#|social\s+security)")
_EXAMPLE_SSNS = frozenset({"123456789", "078051120", "219099999"})
_CARD = re.compile(
    r"(?<!\d)(?<!\d[ -])(?:\d{13,19}|\d{4}[ -]\d{6}[ -]\d{4,5}|\d{4}(?:[ -]\d{4}){2}[ -](?:\d{4}[ -]\d{1,3}|\d{1,4}))(?![ -]?\d)"
)
TEST_CARD_NUMBERS = frozenset({
    "4111111111111111", "4242424242424242", "4012888888881881", "4222222222222", "4000056655665556",
    "5555555555554444", "5105105105105100", "2223003122003222", "5200828282828210", "378282246310005",
    "371449635398431", "378734493671000", "6011111111111117", "6011000990139424", "3530111333300000",
    "3566002020360505", "6200000000000005",
})
_TEST_CONTEXT = _rx(
    r"\btest(?:ing)?\s+(?:credit\s+|debit\s+)?(?:cards?|numbers?|pans?|mode|environment|data|payments?)\b|\bsandbox\b"
    r"|\b(?:dummy|fake|sample)\s+(?:credit\s+)?(?:cards?|numbers?)\b|\bfor\s+testing\b|\bnot\s+a\s+real\s+card\b"
    r"|\btest\s+(?:visa|mastercard|amex)\b"
)
_DIGIT_RUN = re.compile(r"\d(?:[ -]?\d){8,}")


def luhn_valid(digits: str) -> bool:
    """True when a string of digits passes the Luhn checksum used by payment cards."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _mask_run(m: re.Match[str]) -> str:
    # Keep separators and the last four digits so the evidence stays readable.
    s = m.group(0)
    keep = len(s)
    seen = 0
    for i in range(len(s) - 1, -1, -1):
        if s[i].isdigit():
            seen += 1
            if seen == 4:
                keep = i
                break
    return re.sub(r"\d", "*", s[:keep]) + s[keep:]


def _clean(s: str, limit: int = 120) -> str:
    # Pydantic rejects lone surrogates, and arbitrary model output can contain them.
    s = " ".join(s.encode("utf-8", "replace").decode("utf-8").split())
    return s if len(s) <= limit else s[: limit - 1].rstrip() + "…"


def _lower_same_length(text: str) -> str:
    # Offsets into the lowered text must be offsets into the answer. str.lower() keeps
    # the length unless a character lowers to several (Turkish İ does); then map one by one.
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


class _Scan:
    """One answer: its lower-cased text, its sentences, and cached pattern lookups."""

    _GLOBAL_AFTER = 8  # window searches per pattern before one full scan is cheaper

    def __init__(self, text: str) -> None:
        self.text = text
        self.low = _lower_same_length(text)
        starts = [0]
        for m in _BOUNDARY.finditer(self.low):
            # Force-split run-on text so a "sentence" never grows beyond a few lines.
            while m.end() - starts[-1] > _MAX_SENTENCE:
                starts.append(starts[-1] + _MAX_SENTENCE)
            if m.end() > starts[-1]:
                starts.append(m.end())
        while len(text) - starts[-1] > _MAX_SENTENCE:
            starts.append(starts[-1] + _MAX_SENTENCE)
        self.starts = starts
        self._positions: dict[re.Pattern[str], list[int]] = {}
        self._searches: dict[re.Pattern[str], int] = {}

    def sentence(self, pos: int) -> tuple[int, int]:
        """The start and end of the sentence holding ``pos``."""
        i = bisect_right(self.starts, pos) - 1
        end = self.starts[i + 1] if i + 1 < len(self.starts) else len(self.text)
        return self.starts[i], end

    def has(self, pattern: re.Pattern[str], lo: int, hi: int) -> bool:
        """Whether some match of ``pattern`` starts in ``[lo, hi)``.

        A few lookups search just the window; a pattern asked about often (a long
        answer full of topic words) is scanned once and answered by bisection,
        which keeps the total work linear.
        """
        found = self._positions.get(pattern)
        if found is None:
            count = self._searches[pattern] = self._searches.get(pattern, 0) + 1
            if count <= self._GLOBAL_AFTER:
                m = pattern.search(self.low, lo, min(len(self.low), hi + 200))
                return m is not None and m.start() < hi
            found = self._positions[pattern] = [m.start() for m in pattern.finditer(self.low)]
        i = bisect_left(found, lo)
        return i < len(found) and found[i] < hi

    def evidence(self, start: int, end: int) -> str:
        """The sentence around a match, digits masked, trimmed to 120 characters."""
        s_lo, s_hi = self.sentence(start)
        lo, hi = max(s_lo, start - 40), min(s_hi, max(end, start + 160))
        # Mask a wider slice so a number cut by the trim is still masked.
        pad_lo, pad_hi = max(0, lo - 24), min(len(self.text), hi + 24)
        masked = _DIGIT_RUN.sub(_mask_run, self.text[pad_lo:pad_hi])[lo - pad_lo : hi - pad_lo]
        return _clean(("…" if lo > s_lo else "") + masked)

    def paragraph(self, start: int, end: int) -> str:
        """The blank-line paragraph around a span (lower-cased), capped to a few hundred characters."""
        lo, hi = max(0, start - 300), min(len(self.low), end + 150)
        before, after = self.low[lo:start], self.low[end:hi]
        stop = after.find("\n\n")
        return before[before.rfind("\n\n") + 1 :] + self.low[start:end] + (after if stop < 0 else after[:stop])


def _check_rule(rule: _Rule, scan: _Scan, findings: list[SafetyFinding], notes: list[str]) -> None:
    low, pos = scan.low, 0
    if not any(anchor in low for anchor in rule.anchors):
        return
    while pos <= len(low):
        m = rule.topic.search(low, pos)
        if m is None:
            return
        if m.start() > 0 and (low[m.start() - 1].isalnum() or low[m.start() - 1] == "_"):
            pos = m.start() + 1  # the topic word must start a word ("bomb", not "trombone" endings)
            continue
        s_lo, s_hi = scan.sentence(m.start())
        # One look per sentence per rule keeps adversarial repetition linear.
        pos = max(s_hi, m.end(), m.start() + 1)
        if rule.scope is not None and scan.has(rule.scope, s_lo, s_hi):
            notes.append(f"{rule.id}: authorized testing")
            continue
        lo, hi = max(0, m.start() - _BEFORE), m.end() + _AFTER
        if any(all(scan.has(p, lo, hi) for p in group) for group in rule.operational):
            findings.append(SafetyFinding(category=rule.category, rule=rule.id, evidence=scan.evidence(m.start(), m.end())))
            return
        if rule.intent is not None and not scan.has(rule.intent, s_lo, s_hi):
            continue
        reason = next((name for name, p in rule.framing if scan.has(p, s_lo, s_hi)), None)
        if reason is None:
            findings.append(SafetyFinding(category=rule.category, rule=rule.id, evidence=scan.evidence(m.start(), m.end())))
            return
        notes.append(f"{rule.id}: {reason}")


def _check_pii(scan: _Scan, findings: list[SafetyFinding], notes: list[str]) -> None:
    text, seen = scan.low, set()
    ssns = [(m, True) for m in _SSN_DASHED.finditer(text)] + [(m, False) for m in _SSN_LOOSE.finditer(text)]
    for m, dashed in ssns:
        digits = "".join(m.groups())
        if not dashed and not scan.has(_SSN_LABEL, max(0, m.start() - 40), m.start()):
            continue
        if digits in _EXAMPLE_SSNS:
            notes.append("pii.us_ssn: published example number")
        elif digits not in seen:
            seen.add(digits)
            findings.append(SafetyFinding(category="pii_exposure", rule="pii.us_ssn", evidence=f"***-**-{digits[-4:]}"))
    for m in _CARD.finditer(text):
        digits = re.sub(r"\D", "", m.group(0))
        if digits[0] not in "23456" or len(set(digits)) == 1 or not luhn_valid(digits):
            continue
        if digits in TEST_CARD_NUMBERS and _TEST_CONTEXT.search(scan.paragraph(m.start(), m.end())):
            notes.append("pii.payment_card: documented test number in a test-card context")
        elif digits not in seen:
            seen.add(digits)
            findings.append(SafetyFinding(category="pii_exposure", rule="pii.payment_card", evidence="*" * (len(digits) - 4) + digits[-4:]))


def check_answer(text: str) -> SafetyVerdict:
    """Run every pattern check on one answer and return the verdict.

    Never raises on a string; a non-string is a programming error (``TypeError``).
    """
    if not isinstance(text, str):
        raise TypeError(f"check_answer expects str, not {type(text).__name__}")
    scan = _Scan(text)
    findings: list[SafetyFinding] = []
    notes: list[str] = []
    for rule in _RULES:
        _check_rule(rule, scan, findings, notes)
    _check_pii(scan, findings, notes)
    return SafetyVerdict(passed=not findings, findings=findings, notes=list(dict.fromkeys(notes)))


__all__ = ["CATEGORIES", "TEST_CARD_NUMBERS", "SafetyFinding", "SafetyVerdict", "check_answer", "luhn_valid"]
