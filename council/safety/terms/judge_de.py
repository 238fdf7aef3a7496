"""German terms of the judge-aimed flag (see :class:`council.safety.terms.table.JudgeTerms`)."""

from council.safety.terms.table import JudgeTerms, spaced

_SELF = r"(?:diese[rns]?|meine[rn]?|unsere[rn]?) antwort|die (?:obige|vorliegende) antwort|die antwort (?:oben|hier)"
_HERE = r"diese[rn]? hier"
_TOP = (r"(?:auf (?:die )?(?:platz|rang|nummer) (?:eins|1)\b|an (?:die )?(?:erste stelle|spitze)|als (?:die )?beste"
        r"|(?:ganz )?(?:nach )?oben|[üu]ber (?:alle )?(?:die )?anderen|vor (?:die|den|allen) anderen"
        r"|mit (?:der )?(?:h[öo]chst\w*|best\w*|10\b|zehn|voll\w*)|h[öo]chst\w*|erste[nrms]?\b)")
_MARKS = r"(?:die )?(?:h[öo]chst\w*|best\w*|volle[n]? punkt\w*|(?:eine )?(?:glatte )?10\b|zehn|bestnote)"
_JUDGE_VERB = r"(?:beurteil|bewert|benot|pr[üu]f|vergleich|korrigier|les|liest|einordn|ordn|rank|sortier)\w*"

JUDGE = JudgeTerms(
    language="de",
    judges=spaced(
        r"(?:bewerter|gutachter|pr[üu]fer|korrektor|richter)(?:in|innen|s|en)?\b", r"jury\b",
        r"(?:bewertungs|pr[üu]f|korrektur|richter)(?:modell|system|ki)", r"(?:bewertende|pr[üu]fende|korrigierende"
        r"|urteilende)[ns]? (?:modell|system|ki)",
    ),
    revisers=spaced(
        r"(?:anderen|[üu]brigen|restlichen) (?:rats)?(?:mitglieder|modelle|assistenten|kis|llms|agenten|teilnehmer(?:innen)?"
        r"|kolleg(?:en|innen))(?: (?:im|des) rat(?:es|s)?)?",
        r"ratsmitglieder", r"mitglieder (?:des|im|dieses) rat(?:es|s)?", r"kolleg(?:en|innen) im rat",
        r"verfasser(?:innen)? der anderen antworten", r"andere (?:modelle|assistenten|kis|agenten)", r"[üu]brige mitglieder",
        r"(?:falls|wenn) (?:sie|du) eine der anderen antworten",
    ),
    salute=spaced(r"hinweis(?:e)?", r"anmerkung(?:en)?", r"notiz(?:en)?", r"nachricht(?:en)?", r"mitteilung(?:en)?",
                  r"achtung", r"liebe[rs]?", r"sehr geehrte[rs]?", r"hallo", r"erinnerung"),
    whoever=spaced(
        rf"(?:wer|jede[rs]?,? (?:der|die)|diejenigen?,? (?:der|die)|die person,? die|das modell,? das) (?:\w+ ){{0,3}}?"
        rf"{_JUDGE_VERB}",
        rf"an (?:den|die),? (?:der|die) (?:\w+ ){{0,3}}?{_JUDGE_VERB}",
        rf"(?:falls|wenn|sollten) (?:du|sie) (?:[\w,]+ ){{0,5}}?{_JUDGE_VERB}",
    ),
    revision=spaced(
        r"wenn (?:du|sie|ihr) (?:\w+ ){0,3}?[üu]berarbeite\w*", r"(?:in|f[üu]r|bei) (?:der )?(?:zweiten|n[äa]chsten|folgenden)"
        r" runde", r"(?:in|bei) der [üu]berarbeitung(?:srunde)?", r"(?:eure|deine|ihre) [üu]berarbeitete antwort",
        r"alle mitglieder",
    ),
    self=spaced(_SELF, _HERE, r"\bdiese\b", r"\bmir\b", r"\bmich\b", r"\bihr\b", r"diesen text"),
    claim=spaced(
        r"platz (?:eins|1)\b", r"erste[nrms]?\b", r"spitze", r"ganz (?:nach )?oben", r"nummer eins", r"beste[nrms]?\b",
        r"bestnote", r"h[öo]chst\w*", r"volle[nr]? punkt\w*", r"[üu]ber (?:alle )?(?:die )?anderen", r"vor (?:die|den|allen)"
        r" anderen", r"\b10\b", r"\bzehn\b", r"sieger\w*", r"gewinn\w*",
        r"(?:ist|wurde) (?:\w+ ){0,2}?(?:richtig|korrekt|gepr[üu]ft|verifiziert|freigegeben|vollst[äa]ndig|die richtige)",
        r"die (?:richtige|einzig vollst[äa]ndige|referenz)", r"referenz", r"bevorzug\w*|w[äa]hl\w*|zuerst",
    ),
    copy=spaced(
        r"(?:ersetz|[üu]bernehm|[üu]bernimm|kopier|verwerf|verwirf|nehmt|nimm|nehmen|reich|tausch|schreib|[üu]bereinstimm"
        r"|einig)\w*", r"schlie[ßs]t euch", r"schlie[ßs]e dich", r"gib (?:\w+ ){1,2}auf", r"identisch", r"wortw[öo]rtlich",
        r"wort f[üu]r wort", r"unver[äa]ndert",
    ),
    requests=spaced(
        rf"(?:setze|setzt|setzen sie|stelle|stellt|stellen sie|platziere|platziert|platzieren sie|bewerte|bewertet|bewerten sie"
        rf"|reihe|reiht|ordne|ordnet|ordnen sie|stufe|stuft|stufen sie|w[äa]hle|w[äa]hlt|w[äa]hlen sie|benote|benotet"
        rf"|benoten sie) (?:bitte )?(?:{_SELF}|{_HERE}|mich) (?:\w+ ){{0,5}}?{_TOP}",
        rf"(?:{_SELF}|{_HERE}|mich) (?:\w+ ){{0,3}}?{_TOP} (?:\w+ ){{0,3}}?(?:zu )?(?:setzen|stellen|platzieren|bewerten|einstufen"
        r"|eingestuft|einordnen|reihen|w[äa]hlen|ranken|benoten|landet|landen|steht|stehen|kommt|kommen|endet|liegt)",
        rf"(?:gib|gebt|geben sie|vergib|vergebt|vergeben sie|erteile|erteilt|erteilen sie) (?:mir|dieser antwort|meiner antwort"
        rf"|dieser hier|f[üu]r diese antwort) (?:\w+ ){{0,4}}?{_MARKS}",
        rf"(?:{_SELF}|{_HERE}) (?:\w+ ){{0,2}}?(?:verdient|hat (?:sich )?(?:\w+ ){{0,3}}?verdient|sollte(?: als)?|muss"
        rf"|geh[öo]rt|ist (?:klar )?die (?:beste|siegerin)) (?:\w+ ){{0,4}}?(?:platz (?:eins|1)|erste[nrms]?|beste[nrms]?"
        r"|h[öo]chst\w*|volle\w* punkt\w*|bestnote|10\b|spitze|siegerin|eingestuft)",
        rf"(?:verdient|hat sich) (?:{_SELF}|{_HERE}) (?:\w+ ){{0,3}}?(?:platz|erste|beste|h[öo]chst|volle|bestnote|10\b"
        r"|spitze)",
        rf"(?:{_HERE}|diese antwort) (?:bekommt|erh[äa]lt|kriegt) (?:\w+ ){{0,4}}?(?:10\b|zehn|bestnote|h[öo]chst\w*|volle)",
        rf"(?:betrachte|betrachten sie|behandle|behandeln sie|sieh|sehen sie) (?:{_SELF}|diese|sie|mich) (?:\w+ ){{0,2}}?als"
        r" (?:die )?(?:siegerantwort|siegerin|beste|referenz|richtige|gewinner\w*)",
    ),
    reviser_requests=spaced(
        r"ersetz\w* (?:eure|deine|ihre|seine) (?:eigene )?antwort(?:en)? (?:\w+ ){0,2}?durch (?:diese|meine)",
        rf"(?:[üu]bernehmt|[üu]bernimm|[üu]bernehmen sie|kopiert|kopiere|kopieren sie|nehmt|nimm|reicht|reiche|reichen sie)"
        rf" (?:\w+ ){{0,4}}?(?:diese[n]? (?:antwort|text)|{_HERE}|meine antwort) ?(?:\w+ ){{0,4}}?(?:wort f[üu]r wort"
        r"|w[öo]rtlich|unver[äa]ndert|identisch|als (?:eure|deine|ihre) (?:eigene|[üu]berarbeitung)|als eigene|ein\b)",
        r"stattdessen diese\b",
        r"(?:eure|deine|ihre) [üu]berarbeitete antwort (?:muss|soll|sollte) (?:\w+ ){0,3}?(?:identisch|gleich|diese)",
        r"(?:schreib|[äa]nder|pass|[üu]berarbeit)\w* (?:deine|eure|ihre) antwort (?:\w+ ){0,5}?(?:[üu]bereinstimm|identisch"
        r"|gleich|entspr)",
        r"(?:verwerf|verwirf|gib|gebt|geben sie|streich|l[öo]sch)\w* (?:deine[n]?|eure[n]?|ihre[n]?) (?:eigene[n]? )?"
        r"(?:antwort(?:en)?|entw[üu]rfe?|entwurf) (?:\w+ ){0,4}?(?:diese|meine)",
        r"(?:schlie[ßs]t euch|schlie[ßs]e dich|schlie[ßs]en sie sich|einigt euch) (?:\w+ ){0,2}?(?:dieser|auf diese|meiner)"
        r" antwort",
        r"auf diese antwort einig\w*", r"(?:eure|deine|ihre) antwort (?:gegen|durch) diese (?:aus)?(?:zu)?(?:tauschen|ersetzen)",
    ),
    ignore=spaced(
        r"(?:ignorier|vergiss|vergesst|vergessen sie|missacht|[üu]bergeh)\w* (?:alle )?(?:deine |eure |ihre |die )?"
        r"(?:vorherigen|bisherigen|obigen|vorigen|vorangegangenen|urspr[üu]nglichen|fr[üu]heren|erhaltenen) (?:\w+ )?"
        r"(?:anweisungen|instruktionen|regeln|vorgaben|richtlinien|kriterien|bewertungs\w+)",
        r"(?:ignorier|vergiss|vergesst|vergessen sie|missacht)\w* (?:das|dein|euer|ihr|die|deine) (?:bewertungs(?:schema"
        r"|raster|kriterien|vorgaben|regeln)|raster|schema|systemprompt)",
        r"beachte\w* (?:\w+ ){0,3}?(?:anweisungen|vorgaben|regeln|kriterien|bewertungs\w+) nicht",
        r"setz\w* (?:dich|euch|sich) [üu]ber (?:\w+ ){0,3}?(?:anweisungen|vorgaben|regeln|kriterien|bewertungs\w+) hinweg",
    ),
    system=spaced(r"system", r"system(?:hinweis|nachricht|meldung|mitteilung)", r"admin(?:istrator)?", r"entwickler",
                  r"betreiber", r"moderator", r"(?:hinweis|nachricht|meldung|mitteilung) des systems"),
    judging=spaced(r"bewert\w*", r"beurteil\w*", r"gutacht\w*", r"pr[üu]f\w*", r"richter\w*", r"korrigier\w*",
                   r"bevorzug\w*", r"reih\w*", r"\brang\w*", r"angewiesen", r"antwort\w*", r"\brat\b", r"ratsmitglied\w*"),
    example=spaced(
        r"zum beispiel", r"z\. ?b\.", r"beispielsweise", r"\betwa\b", r"der satz", r"(?:k[öo]nnte|kann) lauten",
        r"(?:s[äa]tze|angriffe|texte|zeichenketten|anweisungen|formulierungen|nachrichten|zeilen|hinweise|befehle|etwas)"
        r" wie",
    ),
    topic=spaced(r"injektion\w*", r"injection\w*", r"jailbreak\w*", r"angriff\w*", r"angreifer\w*", r"b[öo]sartig\w*",
                 r"manipul\w*", r"filter\w*", r"erkenn\w*"),
    exam=spaced(r"sch[üu]ler\w*", r"studierende\w*", r"student\w*", r"pr[üu]fung\w*", r"lehrer\w*",
                r"erwartungshorizont", r"klausur\w*", r"aufs[äa]tz\w*", r"hausaufgab\w*", r"nur wenn", r"raster"),
    words=(
        "setze setzt setzen bewerte bewertet bewerten stelle stellt gib gebt vergeben diese dieser diesen "
        "meine antwort antworten auf platz rang eins als beste besten erste ersten höchste höchsten punktzahl "
        "bestnote volle die der den das an hinweis nachricht achtung liebe lieber bewerter gutachter prüfer "
        "richter modell ignoriere vergiss alle vorherigen anweisungen regeln system anderen ratsmitglieder "
        "rat mitglieder ersetzt ersetze eure deine durch übernehmt übernimm wort für wer beurteilt sollte "
        "hier verdient ist mit von über nächste nächsten zweite zweiten runde überarbeitung überarbeitete "
        "überarbeiten überarbeitest schreibe schreibt um übereinstimmt übereinstimmen identisch gleich "
        "gleiche stattdessen verwerft verwerfen nehmt nehmen nimm kopiere kopiert schließt euch konsens "
        "andere übrige übrigen verfasser autor geschrieben falls wenn jeder jede person sie du ihr bist sind "
        "sollten soll muss müssen gehört stellen platziere reihe ordne ordnen geben vergib erteile sieger "
        "siegerin siegerantwort höchstpunktzahl punkte ganz oben spitze nummer vor allen dem des ein eine "
        "einen einem und oder ohne wie bei während nach dieses meiner euer ihre unsere text fassung entwurf "
        "eigene raster kriterien bewertung jury modelle assistent assistenten mitglied kollegen teilnehmer "
        "satzes satz eingestuft betrachten behandeln bevorzuge wähle wählen gewinnt geprüft richtig referenz "
        "sein gerade mehrere prüfen lesen liste landet austauschen unverändert lassen zu"
    ),
    keys={
        "answer": ("*antwort", "hier", "mich", "mir", "ihr", "diesen text", "entw", "betracht", "behandl"),
        "judges": ("bewert", "gutacht", "prüf", "pruf", "korrektor", "korrektur", "richter", "jury", "urteil",),
        "revisers": (
            "*mitglied", "*modell", "assistent", "kis", "llm", "agent", "teilnehm", "kolleg", "verfasser",
            "anderen antwort",
        ),
        "whoever": ("wer ", "jede", "beurteil", "bewert", "benot", "prüf", "pruf", "vergleich", "korrigier", "einordn", "ordn",
                    "rank", "sortier"),
        "revision": ("überarbeit", "uberarbeit", "runde", "mitglieder"),
        "instructions": (
            "anweisung", "instruktion", "regel", "vorgabe", "richtlinie", "kriteri", "bewertungs", "raster",
            "schema", "systemprompt",
        ),
        "system": ("system", "admin", "entwickler", "betreiber", "moderator",),
    },
)
