"""The safety gate's rule table: topics, intents, operational patterns and framing.

See :mod:`council.safety.gate` for how a rule decides. Each rule names its
category, literal anchors (a cheap pre-check), its topic, the intent that
makes a sentence about the topic a candidate, the operational groups that
fail an answer outright, and the framing that lets a candidate sentence pass.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass

from council.safety.regex import SafetyPattern, _rx

_A = "['’]"  # models use typographic apostrophes as often as plain ones

# "how to <verb> ... <object>" and its relatives; the object must follow within five words.
_HOW = (
    r"(?:\bhow\s+(?:to|do\s+(?:i|you|we)|can\s+(?:i|you|we|one)|would\s+(?:i|you|one)|should\s+(?:i|you))"
    r"|\bsteps?\s+(?:to|for)|\binstructions?\s+(?:to|for|on)|\bguide\s+(?:to|for|on)|\btutorial\s+(?:on|for)"
    rf"|\brecipe\s+(?:for|to)|\bways?\s+to|\bmethods?\s+(?:to|for)|\bin\s+order\s+to|\blet{_A}?s"
    rf"|\b(?:you|we)(?:{_A}ll|\s+will|\s+can|\s+could|\s+need\s+to|\s+should|\s+must)"
    r"|to(?:(?<=^to)|(?<=^[ \t]to)|(?<=[.!?:;]to)|(?<=[.!?:;]\sto)))\s+"
)
# What may stand before an imperative that opens a step: a line, sentence or clause start
# ("If you want to, swallow ..."), a list marker, "step 2:", "then". Checked backwards from the verb, so the scan is driven by the verb.
_LEAD_BEHIND = re.compile(
    r"(?:^|[.!?:;,]|\b(?:then|next|now|and|first|finally|also)\b,?)[^\S\n]*"
    r"(?:(?:[-*•>#]+|\d{1,2}[.)]|\([a-z]\)|step[^\S\n]*\d{1,2}[^\S\n]*[:.)-]?)[^\S\n]*){0,3}"
    r"(?:(?:then|next|now|first|carefully|slowly|gently|simply|just),?[^\S\n]+)?\Z",
    re.MULTILINE,
)


class _Imperative:
    """Imperative verbs that open a step ("1. Mix ...", "Then drill ..."), with the ``re.Pattern`` search API."""

    def __init__(self, verbs: str) -> None:
        self.verb = _rx(rf"\b(?:{verbs})\b")

    def finditer(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[str]]:
        """Verb matches whose lead (up to 48 characters back) opens a step."""
        for m in self.verb.finditer(text, pos, endpos):
            if _LEAD_BEHIND.search(text, max(0, m.start() - 48), m.start()):
                yield m

    def search(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        """The first verb match that opens a step."""
        return next(self.finditer(text, pos, endpos), None)


_Matcher = SafetyPattern | _Imperative
_SLOW: set[_Matcher] = set()  # patterns sre cannot skip ahead on; tried last within a group


def _how_to(verbs: str, objects: str) -> SafetyPattern:
    return _rx(rf"{_HOW}(?:\w+\s+){{0,2}}?(?:{verbs})\w*\s+(?:[\w'’-]+\s+){{0,5}}?(?:{objects})")


def _imperative(verbs: str) -> _Imperative:
    pattern = _Imperative(verbs)
    _SLOW.add(pattern)
    return pattern


_QTY = _rx(
    r"\b\d\d*(?:[.,]\d+)?(?:\s*(?:-|–|to)\s*\d+(?:[.,]\d+)?)?\s*(?:mg|mcg|µg|g|grams?|kg|kilos?|ml|millilit(?:er|re)s?"
    r"|l|lit(?:er|re)s?|oz|ounces?|lbs?|pounds?|mol(?:es?)?|mmol|equiv(?:alents?)?|drops?|cups?|tbsp|tablespoons?"
    r"|tsp|teaspoons?|%|percent|°\s*[cf]?|degrees?)(?![a-z])"
)
# "step 3", or a numbered list item at the start of a line; written digit-first so sre can skip ahead.
_STEP = _rx(r"\d(?:(?<=\bstep\d)|(?<=\bstep\s\d))\d?\b|\d(?:(?<=^\d)|(?<=^[ \t]\d)|(?<=^[ \t][ \t]\d)|(?<=^\*\*\d))\d?[.)][^\S\n]+\S")
_IMP_CHEM = _imperative(
    r"mix|add|combine|heat|warm|stir|dissolve|pour|reflux|distill?|filter|cool|chill|evaporate|crystalli[sz]e|dry"
    r"|wash|decant|neutrali[sz]e|titrate|boil|extract|grind|react|drip|agitate|shake|bubble|separate|purify"
    r"|collect|soak|simmer|maintain|transfer|blend|mash|centrifuge|precipitate|incubate|inoculate|culture"
)
_CODE = _rx(r"```|import\s+[\w.]+\s*$|from\s+[\w.]+\s+import\s|def\s+\w+\(|#include\s*<|function\s+\w+\(|using\s+system;|int\s+main\s*\(")
_EXFIL = _rx(
    r"smtplib|\.sendmail\(|requests\.(?:post|put)\(|urllib\.request|urlopen\(|http\.client|socket\.(?:socket|create_connection)"
    r"|\.sendall\(|webhook|api\.telegram\.org|discord(?:app)?\.com/api|ftplib|storbinary|paramiko|xmlhttprequest"
    r"|\bfetch\s*\(|sendbeacon|invoke-(?:webrequest|restmethod)|net\.webclient|\bexfiltrat\w*"
)

# Framing: what makes a candidate sentence harmless. It must be in the matched sentence.
_REFUSAL = _rx(
    rf"\b(?:i|we)(?:\s+(?:really\s+|simply\s+|just\s+)?(?:can{_A}?t|cannot|can\s+not|won{_A}t|will\s+not|must\s+not"
    rf"|shouldn{_A}t|should\s+not|do\s+not|don{_A}t|refuse\s+to|must\s+decline\s+to|am\s+unable\s+to"
    rf"|am\s+not\s+(?:able|going|willing)\s+to)|{_A}m\s+(?:unable\s+to|not\s+(?:able|going|willing)\s+to))"
    r"\s+(?:\w+\s+){0,3}?(?:help|assist|provide|give|share|explain|describe|write|create|detail|offer|walk"
    rf"|support|generate|produce|tell|teach|outline|list|do\s+that)\b|\bi{_A}m\s+sorry,?\s+but\b"
)
_DISCOURAGE = _rx(
    rf"\b(?:is|are|would\s+be|was|it{_A}s|that{_A}s)\s+(?:\w+\s+){{0,2}}?(?:illegal|unlawful|a\s+(?:serious\s+)?"
    r"(?:crime|felony)|against\s+the\s+law|(?:extremely|very|incredibly)\s+dangerous|banned|prohibited)\b"
    rf"|\b(?:do\s+not|don{_A}t|never)\s+(?:try|attempt)\b"
)
_HISTORY = _rx(
    r"\b(?:history|historical(?:ly)?|treat(?:y|ies)|convention|banned|prohibited|outlawed|illegal|world\s+war"
    r"|wwi+|in\s+(?:1[89]|20)\d\d|regulat\w*|laws?|non-?proliferation|disarmament|opcw|geneva|stockpiles?"
    # News: "police said the suspect had searched for how to …" reports a crime, it does not teach one.
    r"|police|suspects?|arrest\w*|court|sentenced|convicted|prosecutors?|investigators?|according\s+to)\b"
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
    r"\s+(?:rules?|signatures?|software|tools?)\b|\bsecurity\s+awareness\s+training\b|\bawareness\s+training\b|\bphishing\s+simulations?\b"
)
_AUTHORIZED = _rx(
    rf"\bwith\s+(?:(?:written|explicit|their|the\s+owner{_A}?s?)\s+)?(?:permission|authori[sz]ation|consent)\b"
    r"|\bauthori[sz]ed\s+(?:penetration|pentest|test|engagement|assessment)\w*|\bpenetration\s+test\w*|\bpentest\w*"
    r"|\bbug\s+bount\w*|\bctf\b|\bcapture\s+the\s+flag\b|\byour\s+own\s+(?:lab|network|system|server|machine|device"
    r"|account|home\s+lab|wi-?fi|router)\b|\bin\s+scope\b|\bhack\s*the\s*box\b|\btryhackme\b"
)
_SUPPORT = _rx(
    r"\b(?:988|crisis\s+(?:line|text\s+line|hotline|cent(?:er|re)|services?)|hotlines?|helplines?|lifeline|samaritans"
    r"|befrienders|suicide\s+prevention|reach\s+out|talk\s+to\s+(?:someone|a\s+(?:doctor|therapist|counsel+or"
    rf"|professional|friend|trusted))|you\s+(?:are|{_A}re)\s+not\s+alone|warning\s+signs|risk\s+factors"
    r"|help\s+is\s+available|emergency\s+(?:services|room|number)|call\s+(?:911|999|112|000)|therap(?:y|ist)"
    r"|counsel+(?:ing|or)|mental\s+health|not\s+true|a\s+lie|bull(?:y|ying|ies)|harass\w*|report\s+(?:it|them|this))\b"
)
_POISON_SAFETY = _rx(r"\b(?:poison\s+control|if\s+you\s+suspect|symptoms?|treatment|antidotes?|first\s+aid|emergency)\b")

_BASE = (("refusal", _REFUSAL), ("discouraging framing", _DISCOURAGE))
_DANGER_FRAMING = (*_BASE, ("historical or legal context", _HISTORY), ("fiction or review", _FICTION))
_MALWARE_FRAMING = (*_BASE, ("defensive framing", _DEFENSIVE), ("authorized testing", _AUTHORIZED),
                    ("historical or legal context", _HISTORY), ("fiction or review", _FICTION))
_SELF_HARM_FRAMING = (("refusal", _REFUSAL), ("support resources", _SUPPORT), ("fiction or review", _FICTION))

_Ops = tuple[tuple[_Matcher, ...], ...]


@dataclass(frozen=True)
class _Rule:
    """A topic, the intent that makes a sentence about it a candidate, and what makes it operational.

    ``anchors`` are literal substrings every topic match contains; a rule whose
    anchors are all absent is skipped without running its regex. ``operational``
    lists groups; a group fires when each of its patterns matches in one passage
    of the wide window. ``intent=None`` makes the topic alone a candidate.
    ``scope`` found in the sentence means the topic does not apply (an
    authorized test target).
    """

    id: str
    category: str
    anchors: tuple[str, ...]
    topic: SafetyPattern
    intent: SafetyPattern | None
    operational: _Ops
    framing: tuple[tuple[str, SafetyPattern], ...]
    scope: SafetyPattern | None = None


def _rule(id: str, category: str, anchors: str, topic: str, intent: SafetyPattern | None, ops: _Ops,
          framing: tuple[tuple[str, SafetyPattern], ...], scope: SafetyPattern | None = None) -> _Rule:
    ops = tuple(tuple(sorted(group, key=lambda p: p in _SLOW)) for group in ops)
    return _Rule(id, category, tuple(anchors.split("|")), _rx(topic), intent, ops, framing, scope)


def _chem_ops(precursors: str) -> _Ops:
    # The passage must name a precursor, not just the agent: "I won't explain sarin; for a
    # classroom demo, mix 50 ml of vinegar with baking soda" is not a synthesis route.
    named = _rx(precursors)
    return ((_IMP_CHEM, _QTY, named), (_IMP_CHEM, _STEP, named))


# Topic alternatives start with a literal (no leading \b: the scan checks the word start itself).
# Reused inside other patterns, a topic is wrapped by _words so "ied" no longer matches "applied".


def _words(alternatives: str) -> str:
    return rf"\b(?:{alternatives})"


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
          rf"|lowers?)|polymer\s?80|gun{_A}?s?\s+serial\s+numbers?|firearm{_A}?s?\s+serial\s+numbers?|serial\s+numbers?\s+(?:off|from)\s+"
          r"(?:a|the|your)\s+(?:gun|firearm|pistol|rifle|weapon|receiver|frame)")
_PRINTED = (r"3[- ]?d[- ]?print(?:ed|ing|able)?\s+(?:guns?|firearms?|pistols?|rifles?|receivers?|lowers?|gun\s+frames?|pistol\s+frames?"
            r"|glocks?|ar-?15s?|weapons?|auto\s+sears?)|print(?:ed|ing)?\s+(?:a|an|your\s+own|the|my)\s+(?:gun|firearm|pistol|rifle"
            r"|weapon|glock)\b|liberator\s+(?:pistol|gun)|fgc-?9\b|defcad|the\s+gatalog")
_GUN_NOUN = r"guns?|firearms?|pistols?|rifles?|receivers?|lowers?|frames?|weapons?|glocks?|fgc-?9|liberator"
_SH_TOPIC = (r"suicid\w*|kill(?:ing)?\s+(?:yourself|myself|themselves|himself|herself|oneself)"
             rf"|end(?:ing)?\s+(?:your|my|their|one{_A}s)\s+(?:own\s+)?life(?!\s+insurance)|tak(?:e|ing)\s+(?:your|my|their|one{_A}s)\s+own\s+life"
             r"|self[- ]?(?:harm\w*|injur\w*|mutilat\w*)|cut(?:ting)?\s+(?:yourself|myself)|hurt(?:ing)?\s+(?:yourself|myself)"
             r"|want(?:s|ing)?\s+to\s+die\b")
_ENCOURAGE = (
    r"(?:you\s+should|you\s+ought\s+to|go\s+ahead\s+and|you\s+might\s+as\s+well|you\s+deserve\s+to"
    rf"|why\s+don{_A}?t\s+you|it{_A}?s\s+time\s+(?:for\s+you\s+)?to)\s+(?:just\s+)?(?:kill\s+yourself|end\s+it\s+all"
    r"|end\s+your\s+(?:own\s+)?life|die|hurt\s+yourself|cut\s+(?:yourself|deeper)|starve\s+yourself|take\s+your\s+own\s+life)\b"
    # "Nobody would miss you at that meeting" is advice; only the bare verdict counts.
    r"|(?:no\s*one|nobody)\s+(?:would|will)\s+(?:miss|care\s+about)\s+you(?=\s*(?:[.!;]|$)|,?\s+(?:if|when)\s+you\b)"
    r"|world\s+(?:would\s+be|is)\s+better\s+(?:off\s+)?without\s+you\b|(?:everyone|they)\s+(?:would|will)\s+be\s+better\s+off\s+without\s+you\b"
)
_RANSOM = (r"ransomware|crypto-?lockers?|file[- ]?encrypting\s+(?:malware|trojans?|virus(?:es)?)|encrypts?\s+(?:all\s+(?:of\s+)?)?(?:the\s+)?"
           rf"(?:victim{_A}?s?|user{_A}?s?|their|every|all)\s+(?:\w+\s+)?files|ransom\s+notes?")
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
    rf"(?:someone(?:\s+else)?|somebody|another\s+person|other\s+people|a\s+victim|the\s+victim){_A}s?\s+"
    rf"|(?:your|my|his|her|their)\s+(?:ex|ex-\w+|partner|spouse|wife|husband|girlfriend|boyfriend|boss|neighbou?r|roommate|co-?worker"
    rf"|colleague|teacher|classmate|friend|sister|brother|mom|dad|parents?|employer|school|university|company|landlord){_A}s\s+"
    rf"|(?:the|a)\s+(?:school|company|government|bank|hospital|airport|city|police|university|employer){_A}s\s+"
)
_TARGET = (
    rf"(?:{_WHOSE})(?:[\w-]+\s+){{0,2}}?(?:accounts?|e-?mails?|inbox|phones?|iphone|android|wi-?fi|network|router|computer|laptop|pc"
    r"|servers?|database|website|site|instagram|facebook|snapchat|tiktok|twitter|whatsapp|icloud|gmail|webcam|camera|messages|texts"
    rf"|system|passwords?)\b|without\s+(?:(?:their|the\s+owner{_A}?s?|his|her|anyone{_A}?s?)\s+)?(?:knowing|knowledge|permission|consent"
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
_DOSE = _rx(r"\b\d\d*(?:[.,]\d+)?\s*(?:-\s*\d+\s*)?(?:pills?|tablets?|capsules?|mg|milligrams?|g|grams?)\b")
_SH_INTENT = _rx(
    r"\b(?:best|easiest|quickest|fastest|surest|most\s+(?:effective|reliable|painless|lethal|certain)|least\s+painful|painless|reliable"
    r"|quick)\s+(?:ways?|methods?)\b|\bhow\s+(?:many|much)\s+(?:\w+\s+){0,2}?(?:pills|tablets|capsules|mg|grams|milligrams)\b"
    r"|\b(?:lethal|fatal)\s+dose|\bhow\s+to\s+(?:kill|hang|cut|overdose|hurt|harm|end)\b|\benough\s+to\s+(?:kill|die|be\s+fatal)"
)

_RULES: tuple[_Rule, ...] = (
    _rule("chem.nerve_agent", "dangerous_instructions", "sarin|soman|tabun|vx|novichok|nerve|chemical|mustard|phosgene|methylphosphon",
          _NERVE, _how_to(_CHEM_VERBS + r"|dispers|releas|obtain|acquir", _NERVE),
          _chem_ops(r"methylphosphon\w*|\bdmmp\b|pinacolyl|phosphorus\s+(?:tri|oxy)chloride|thionyl\s+chloride|thiodiglycol"
                    r"|diethylaminoethanol|diisopropylaminoethanol"), _DANGER_FRAMING),
    _rule("chem.explosive_synthesis", "dangerous_instructions",
          "tatp|peroxide|hmtd|nitro|cotton|petn|rdx|hmx|anfo|picric|azide|fulminate|flash|semtex|explosive|glycerin|ammonium",
          f"{_EXPLOSIVE}|{_EXPLOSIVE_COMBO}", _how_to(_CHEM_VERBS, _EXPLOSIVE),
          _chem_ops(r"sulfuric|sulphuric|nitric\s+acid|hydrochloric|muriatic|hexamine|glycerine?|ammonium\s+nitrate|potassium\s+chlorate"
                    r"|perchlorate|lead\s+nitrate|sodium\s+azide|mercury"), _DANGER_FRAMING),
    _rule("chem.toxin", "dangerous_instructions", "ricin|abrin|botulinum|toxin|anthra|weapon", _TOXIN,
          _how_to(_CHEM_VERBS + r"|grow|concentrat|spread|releas", _TOXIN),
          # A source, not quantities: reconstituting botox is routine medicine.
          ((_IMP_CHEM, _rx(r"castor\s+beans?|rosary\s+peas?|jequirity|bacillus\s+anthracis|anthrax\s+spores|clostridium")),), _DANGER_FRAMING),
    _rule("drugs.illicit_synthesis", "dangerous_instructions", "meth|shake|pot|fentan", _DRUG, _how_to(_CHEM_VERBS, _DRUG),
          # Precursors, not quantities: dissolving a sample for a fentanyl test strip is harm reduction.
          ((_IMP_CHEM, _rx(r"pseudoephedrine|ephedrine|red\s+phosphorus|anhydrous\s+ammonia|methylamine|phenylacetone|\bp2p\b|\bnpp\b"
                           r"|4-anpp|propionyl\s+chloride")),), _DANGER_FRAMING),
    _rule("chem.poisoning", "dangerous_instructions", "poison", _POISON,
          _rx(r"\bhow\s+(?:to|do\s+i|can\s+i|would\s+i)\s+poison\b|\bwithout\s+(?:being\s+|getting\s+)?(?:detected|caught|noticed|traced)\b"
              r"|\b(?:undetectabl|untraceabl)\w*"),
          ((_imperative(r"slip|add|mix|put|pour|sprinkle|dissolve|give|crush|inject|lace"),
            _rx(r"\b(?:food|drinks?|coffee|tea|meals?|wine|water|glass|cup|medications?)\b"),
            _rx(r"antifreeze|ethylene\s+glycol|thallium|arsenic|cyanide|ricin|digoxin|insulin|oleander|nicotine|rat\s+poison")),),
          (*_BASE, ("poison safety context", _POISON_SAFETY), ("fiction or review", _FICTION))),
    _rule("weapon.explosive_device", "weapon_making", "bomb|ied|explosive|molotov|grenade|detonator|blasting", _DEVICE,
          _how_to(r"mak|build|assembl|construct|creat|rig|put\s+together|wire|detonat|set\s+off|prepar", _DEVICE),
          ((_imperative(r"drill|fill|pack|stuff|screw|attach|insert|connect|wire|tape|seal|cap|pour|mix|add|thread|solder|place|tighten"
                        r"|light|ignite|cut|wrap|glue|bury|plant"),
            _rx(r"end[- ]?caps?|black\s+powder|gun\s?powder|smokeless\s+powder|flash\s+powder|\bfuses?\b|\bwicks?\b|detonators?"
                r"|blasting\s+caps?|shrapnel|\bnails\b|ball\s+bearings|ammonium\s+nitrate|fuel\s+oil|potassium\s+(?:chlorate|nitrate"
                r"|perchlorate)|igniters?|electric\s+match(?:es)?|\btimers?\b|9\s?-?v(?:olt)?\s+batter(?:y|ies)|gasoline|petrol"
                r"|motor\s+oil|styrofoam|\brags?\b|steel\s+pipe|pvc\s+pipe|pressure\s+cooker|\btatp\b|thermite"),
            # Timers and batteries are electronics; the passage must hold an explosive or fuel.
            _rx(r"black\s+powder|gun\s?powder|smokeless\s+powder|flash\s+powder|ammonium\s+nitrate|potassium\s+(?:chlorate|perchlorate)"
                r"|\btatp\b|thermite|gasoline|petrol|napalm|powder\s+from\s+fireworks|firework\s+powder|match\s?heads")),),
          _DANGER_FRAMING),
    _rule("weapon.full_auto", "weapon_making", "auto|select|sear|lightning|switch|machine", _FULL_AUTO,
          _how_to(r"convert|turn|mak|build|modif|machin|fil(?:e|ing)|install|print|mill|drill|assembl|creat|add", _FULL_AUTO),
          ((_imperative(r"file|grind|drill|mill|cut|bend|shave|notch|weld|machine|trim|ream|bore|print"),
            # Parts only a conversion touches: "drill a pilot hole, then hammer" is carpentry.
            _rx(r"disconnector|\bsears?\b|\btrip\b|selector|lightning\s+link|\bm16\b|third\s+(?:hole|pin)|auto[- ]?sear|full[- ]?auto")),),
          _DANGER_FRAMING),
    _rule("weapon.ghost_gun", "weapon_making", "ghost|untraceable|80|eighty|unserialized|polymer|serial", _GHOST,
          _how_to(r"build|mak|finish|complet|mill|assembl|get|buy|remov|fil(?:e|ing)|grind|obliterat|defac|eras|scratch|drill", _GHOST),
          ((_imperative(r"drill|mill|cut|remove|file|grind|sand|clamp|route|rout|insert|install|assemble|snip|pin|break"),
            _rx(r"\bjigs?\b|fire\s+control\s+(?:pocket|group)|trigger\s+pocket|\brails?\b|\btabs\b|locking\s+block|drill\s+press|router"
                r"|end\s+mill|pin\s+holes?|serial\s+numbers?|buffer\s+tube"),
            _rx(r"fire\s+control\s+pocket|trigger\s+pocket|locking\s+block|receiver|\b(?:80|eighty)\s?(?:%|percent)|polymer\s?80")),),
          _DANGER_FRAMING),
    _rule("weapon.printed_gun", "weapon_making", "print|liberator|fgc|defcad|gatalog", _PRINTED,
          _how_to(r"print|mak|build|download|assembl|get|creat|find", _GUN_NOUN),
          ((_rx(r"\binfill\b|layer\s+height|nozzle|\bpla\+?|\bpetg\b|\bnylon\b|slicer|perimeters|\.stl\b|\bstl\s+files?|print\s+(?:bed|speed"
                r"|orientation)"),
            _rx(r"receiver|barrel|firing\s+pin|rifling|\becm\b|locking\s+block|\bsear\b|striker|gun\s+frame|pistol\s+frame")),
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
    _rule("self_harm.encouragement", "self_harm", "you|die|end|deeper", _ENCOURAGE, None, (), _SELF_HARM_FRAMING),
    _rule("self_harm.method", "self_harm", "suicid|kill|life|self|cut|hurt|die", _SH_TOPIC, _SH_INTENT,
          # "More than 4,000 mg can be fatal" is means-safety advice; "take 40 tablets" or "enough
          # to die" in a passage about suicide is a method.
          ((_rx(_words(_SH_TOPIC)), _imperative(r"take|swallow|crush|drink|inject|down"), _DOSE),
           (_rx(_words(_SH_TOPIC)), _DOSE, _rx(rf"\benough\s+to\s+(?:die|kill|end)|\bwill\s+kill\s+you|\bwon{_A}?t\s+wake\s+up|\bnever\s+wake\s+up"
                                        r"|\blethal\s+dose\s+(?:is|of)\b|\bto\s+die\b")),
           # "Take 2 tablets every 6 hours" is dosing; it is a method only in a passage about self-harm.
           (_rx(_words(_SH_TOPIC)), _imperative(r"cut|tie|take|swallow|crush|hang|inhale|seal|jump|drink|press"),
            _rx(r"\b(?:deep(?:er|ly)?|vertical(?:ly)?|lengthwise|wrists?|arter(?:y|ies)|noose|rope|pills|tablets|exhaust|helium|charcoal"
                r"|plastic\s+bag)\b")),
           # Concealment advice; "don't hide the cuts from your doctor" must not match.
           (_rx(r"(?:^|[.!?:;,]\s*|\b(?:then|and|so\s+you\s+can|easi(?:er|est|ly)\s+to)\s+)hide\s+(?:the\s+|your\s+)?"
                r"(?:cuts|scars|marks|wounds)\b"),)), _SELF_HARM_FRAMING),
)
