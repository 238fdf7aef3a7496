"""The safety gate: pattern checks run on every answer before peer review.

An answer that fails is removed from review and ranking and reported with the
category, the rule and masked evidence. The checks are pure, synchronous and
linear in the size of the answer.

How a rule decides (everything is judged near the text that matched):

* A *topic* match (``pipe bomb``, ``ransomware``, ``sarin``) is not enough by
  itself; reviews, news and warnings mention these words all the time.
* *Operational* content is concrete, actionable material: an imperative step
  with quantities and a named agent or precursor, assembly steps with bomb
  parts, code that encrypts files for ransom or ships keystrokes off the
  machine, a command line aimed at someone else's account. Its parts must
  occur together in one *passage* (a paragraph, or a fenced code block however
  many blank lines it has) that lies in a wide window around the topic (400
  characters before, 1500 after, because instructions follow their heading).
  Nothing excuses it: not a refusal, not "for educational purposes only".
* Otherwise an *intent* match in the same *sentence* ("how to build a pipe
  bomb", "you can hack into your ex's account") makes it a candidate. A
  candidate passes only when that same sentence carries framing: a refusal, a
  warning that it is illegal, history or law, fiction or a review, defence or
  removal, support resources. Framing elsewhere in the answer does not count,
  so one harmless word in another paragraph switches nothing off, and the
  words "for educational purposes" are not framing at all.

Sentences end at ``.!?`` before whitespace and at newlines (at most 400
characters); passages end at blank lines outside code fences (at most 1500).

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

Speed: patterns run on the lower-cased answer and are rewritten so that every
alternative starts with a literal (sre then skips ahead), rules whose anchor
words are absent are skipped, and lookups search small windows until a full
scan becomes cheaper. A typical 100 KB answer takes about 10 ms; one dense
with topic words takes a few tens of ms; 1 MB of adversarial text under 1 s.

Limits: obfuscated spellings ("p1pe b0mb"), other languages and harm phrased
without any of the listed vocabulary get through. A model-based checker can
sit behind the same ``SafetyVerdict`` (``checker`` names which one ran).
"""

from __future__ import annotations

import re
import sys
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Union

from pydantic import BaseModel, ConfigDict

# The categories a pattern finding can carry (an LLM classifier may report others).
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


def _group_end(pattern: str, start: int) -> int:
    # Index just past the group opening at ``start`` (escapes and character classes respected).
    depth, i, in_class = 0, start, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ValueError(f"unbalanced group in {pattern!r}")


def _alternatives(body: str) -> list[str]:
    # Split a group body at its top-level "|".
    parts, depth, last, i, in_class = [], 0, 0, 0, False
    while i < len(body):
        c = body[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            parts.append(body[last:i])
            last = i + 1
        i += 1
    return [*parts, body[last:]]


_LEADING_B = re.compile(r"(^|\||\(\?:)\\b([a-z0-9]|\\d)(?![?*+{])")  # a quantified first token stays as it is
_QUANTIFIER = ("?", "*", "+", "{")


def _flatten(pattern: str) -> str:
    # (?:a|b)rest  ->  a rest|b rest, for alternatives that open with an unquantified group.
    out = []
    for alt in _alternatives(pattern):
        if alt.startswith("(?:"):
            end = _group_end(alt, 0)
            if not alt[end:].startswith(_QUANTIFIER):
                out.append(_flatten("|".join(inner + alt[end:] for inner in _alternatives(alt[3 : end - 1]))))
                continue
        out.append(alt)
    return "|".join(out)


def _literal_first(pattern: str) -> str:
    """Rewrite a pattern so that every top-level alternative starts with a literal.

    ``\\b(?:a|b)`` becomes ``(?:\\ba|\\bb)``, ``(?:a|b)c`` becomes ``ac|bc`` and
    ``\\bword`` becomes ``w(?<=\\bw)ord``. Each form matches exactly the same text,
    but sre skips ahead through an answer only when every alternative opens with a
    literal character, which is an order of magnitude faster on long answers.
    """
    i = pattern.find("\\b(?:")
    while i >= 0:
        end = _group_end(pattern, i + 2)
        if not pattern[end:].startswith(_QUANTIFIER):  # \b(?:x)? is not (?:\bx)?
            body = "|".join("\\b" + alt for alt in _alternatives(pattern[i + 5 : end - 1]))
            pattern = f"{pattern[:i]}(?:{body}){pattern[end:]}"
        i = pattern.find("\\b(?:", i + 1)
    return _LEADING_B.sub(lambda m: f"{m[1]}{m[2]}(?<=\\b{m[2]})", _flatten(pattern))


_COMPILED: list[tuple[str, re.Pattern[str]]] = []  # (source, compiled), so a test can check the rewrite


def _rx(pattern: str) -> re.Pattern[str]:
    # Patterns run on the lower-cased answer: without IGNORECASE, sre can skip ahead on
    # first characters, which is what keeps a 100 KB answer fast. An upper-case letter
    # (other than an escape like \S) would therefore never match, so refuse it early.
    if re.search(r"(?<!\\)[A-Z]", pattern):
        raise ValueError(f"safety patterns must be lower-case: {pattern[:60]!r}")
    compiled = re.compile(_literal_first(pattern), re.MULTILINE)
    _COMPILED.append((pattern, compiled))
    return compiled


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


_Matcher = Union[re.Pattern[str], _Imperative]
_SLOW: set[_Matcher] = set()  # patterns sre cannot skip ahead on; tried last within a group


def _how_to(verbs: str, objects: str) -> re.Pattern[str]:
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
_MALWARE_FRAMING = (*_BASE, ("defensive framing", _DEFENSIVE), ("authorized testing", _AUTHORIZED), ("fiction or review", _FICTION))
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
    topic: re.Pattern[str]
    intent: re.Pattern[str] | None
    operational: _Ops
    framing: tuple[tuple[str, re.Pattern[str]], ...]
    scope: re.Pattern[str] | None = None


def _rule(id: str, category: str, anchors: str, topic: str, intent: re.Pattern[str] | None, ops: _Ops,
          framing: tuple[tuple[str, re.Pattern[str]], ...], scope: re.Pattern[str] | None = None) -> _Rule:
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
           (_rx(rf"(?:^|[.!?:;,]\s*|\b(?:then|and|so\s+you\s+can|easi(?:er|est|ly)\s+to)\s+)hide\s+(?:the\s+|your\s+)?"
                r"(?:cuts|scars|marks|wounds)\b"),)), _SELF_HARM_FRAMING),
)

_BEFORE, _AFTER = 400, 1500  # the wide window: instructions follow their heading
_MAX_SENTENCE = 400
_BOUNDARY = re.compile(r"[.!?\n](?:(?<=\n)|[\"'”’)\]]{0,3}(?=\s))")
_MAX_PASSAGE = 1500
_PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n")
_FENCE = re.compile(r"^[^\S\n]*```", re.MULTILINE)

# Each PII pattern starts with a bare digit (so sre skips prose fast) and checks what precedes it by lookbehind.
_SSN_DASHED = re.compile(r"\d(?<![\d-]\d)\d\d-\d\d-\d{4}(?![\d-])")
_SSN_LOOSE = re.compile(r"\d(?<![\d-]\d)\d\d ?\d\d ?\d{4}(?![\d-])")
_SSN_LABEL = _rx(r"\b(?:ssn|ss#|social\s+security)")
_EXAMPLE_SSNS = frozenset({"123456789", "078051120", "219099999"})
_CARD = re.compile(
    r"\d(?<!\d\d)(?<!\d[ -]\d)(?:\d{12,18}|\d{3}[ -]\d{6}[ -]\d{4,5}|\d{3}(?:[ -]\d{4}){2}[ -](?:\d{4}[ -]\d{1,3}|\d{1,4}))(?![ -]?\d)"
)
# Test numbers the card networks and payment processors document (Visa, Mastercard, Amex,
# Discover, JCB, UnionPay); exempt only in a passage that says it is about testing.
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


def _split(text: str, breaks: list[int], cap: int) -> list[int]:
    # Start offsets of pieces ending at the given breaks, force-split so none exceeds cap.
    starts = [0]
    for end in breaks:
        while end - starts[-1] > cap:
            starts.append(starts[-1] + cap)
        if end > starts[-1]:
            starts.append(end)
    while len(text) - starts[-1] > cap:
        starts.append(starts[-1] + cap)
    return starts


def _piece(starts: list[int], size: int, pos: int) -> tuple[int, int, int]:
    i = bisect_right(starts, pos) - 1
    return i, starts[i], starts[i + 1] if i + 1 < len(starts) else size


class _Scan:
    """One answer: its lower-cased text, sentences and passages, and cached pattern lookups.

    Lookups start by searching just the window asked about; once the windows
    searched for a pattern add up to the whole answer, one full scan answers the
    rest by bisection. That keeps the common case (a few topic words) cheap and
    the worst case (an answer full of them) linear.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.low = _lower_same_length(text)
        self.sentences = _split(text, [m.end() for m in _BOUNDARY.finditer(self.low)], _MAX_SENTENCE)
        # Passages are paragraphs, except that a fenced code block is one passage however many blank lines it has.
        fences = [m.start() for m in _FENCE.finditer(self.low)]
        breaks = [m.end() for m in _PARAGRAPH_BREAK.finditer(self.low) if bisect_left(fences, m.start()) % 2 == 0]
        self.passages = _split(text, breaks, _MAX_PASSAGE)
        # Keyed by id(): patterns and groups are module constants, and hashing a compiled
        # pattern hashes its whole source, which costs more than the lookups it serves.
        self._positions: dict[int, list[int]] = {}
        self._searched: dict[int, int] = {}
        self._passage_hits: dict[tuple[int, int], bool] = {}
        self._satisfied: dict[int, list[int]] = {}

    def sentence(self, pos: int) -> tuple[int, int]:
        """The start and end of the sentence holding ``pos``."""
        _, lo, hi = _piece(self.sentences, len(self.text), pos)
        return lo, hi

    def _positions_of(self, pattern: _Matcher) -> list[int]:
        found = self._positions.get(id(pattern))
        if found is None:
            found = self._positions[id(pattern)] = [m.start() for m in pattern.finditer(self.low)]
        return found

    def has(self, pattern: _Matcher, lo: int, hi: int) -> bool:
        """Whether some match of ``pattern`` starts in ``[lo, hi)``."""
        key = id(pattern)
        if key not in self._positions:
            # A match starting before hi may end after it: 80 characters lets step parts and
            # intents finish; anything longer would run into the next sentence anyway.
            spent = self._searched[key] = self._searched.get(key, 0) + hi - lo + 80
            if spent <= len(self.low):
                m = pattern.search(self.low, lo, min(len(self.low), hi + 80))
                return m is not None and m.start() < hi
        found = self._positions_of(pattern)
        i = bisect_left(found, lo)
        return i < len(found) and found[i] < hi

    def operational(self, groups: _Ops, lo: int, hi: int) -> bool:
        """Whether some passage overlapping ``[lo, hi)`` holds every pattern of some group."""
        first = _piece(self.passages, len(self.text), lo)[0]
        last = _piece(self.passages, len(self.text), max(lo, hi - 1))[0]
        for group in groups:
            if not all(self.has(p, lo, hi) for p in group):
                continue  # the usual case, settled without looking at single passages
            key = id(group)
            satisfied = self._satisfied.get(key)
            if satisfied is None:
                spent = self._searched[key] = self._searched.get(key, 0) + last - first + 1
                if spent <= len(self.passages):
                    if any(self._passage_has(group, i) for i in range(first, last + 1)):
                        return True
                    continue
                satisfied = self._satisfied[key] = self._satisfying_passages(group)
            j = bisect_left(satisfied, first)
            if j < len(satisfied) and satisfied[j] <= last:
                return True
        return False

    def _passage_has(self, group: tuple[_Matcher, ...], i: int) -> bool:
        key = (id(group), i)
        hit = self._passage_hits.get(key)
        if hit is None:
            _, lo, hi = _piece(self.passages, len(self.text), self.passages[i])
            hit = self._passage_hits[key] = all(self.has(p, lo, hi) for p in group)
        return hit

    def _satisfying_passages(self, group: tuple[_Matcher, ...]) -> list[int]:
        common: set[int] | None = None
        for pattern in group:
            indexes = {bisect_right(self.passages, pos) - 1 for pos in self._positions_of(pattern)}
            common = indexes if common is None else common & indexes
        return sorted(common or ())

    def evidence(self, start: int, end: int) -> str:
        """The sentence around a match, digits masked, trimmed to 120 characters."""
        s_lo, s_hi = self.sentence(start)
        lo, hi = max(s_lo, start - 40), min(s_hi, max(end, start + 160))
        # Mask a wider slice so a number cut by the trim is still masked.
        pad_lo, pad_hi = max(0, lo - 24), min(len(self.text), hi + 24)
        masked = _DIGIT_RUN.sub(_mask_run, self.text[pad_lo:pad_hi])[lo - pad_lo : hi - pad_lo]
        return _clean(("…" if lo > s_lo else "") + masked)

    def passage(self, pos: int) -> tuple[int, int]:
        """The start and end of the passage (paragraph or code block) holding ``pos``."""
        _, lo, hi = _piece(self.passages, len(self.text), pos)
        return lo, hi


def _check_rule(rule: _Rule, scan: _Scan, findings: list[SafetyFinding], notes: list[str]) -> None:
    low, pos = scan.low, 0
    if not any(anchor in low for anchor in rule.anchors):
        return
    while pos <= len(low):
        m = rule.topic.search(low, pos)
        if m is None:
            return
        if m.start() > 0 and (low[m.start() - 1].isalnum() or low[m.start() - 1] == "_"):
            pos = m.start() + 1  # the topic must start a word: "ied", not the end of "tried"
            continue
        s_lo, s_hi = scan.sentence(m.start())
        # One look per sentence per rule keeps adversarial repetition linear.
        pos = max(s_hi, m.end(), m.start() + 1)
        if rule.scope is not None and scan.has(rule.scope, s_lo, s_hi):
            notes.append(f"{rule.id}: authorized testing")
            continue
        lo, hi = max(0, m.start() - _BEFORE), m.end() + _AFTER
        if scan.operational(rule.operational, lo, hi):
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
        digits = re.sub(r"\D", "", m.group(0))
        # Never issued: area 000, 666 or 9xx, group 00, serial 0000.
        if digits[:3] in ("000", "666") or digits[0] == "9" or digits[3:5] == "00" or digits[5:] == "0000":
            continue
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
        if digits in TEST_CARD_NUMBERS and scan.has(_TEST_CONTEXT, *scan.passage(m.start())):
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
