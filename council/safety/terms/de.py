"""German terms of the safety gate's intent layer (see :mod:`council.safety.terms`).

German puts the object before a "zu" infinitive ("das Konto zu übernehmen"),
so most goals match object first.
"""

from council.safety.terms.table import Terms

_DEVICE = r"(?:konto|e-mail-konto|mailkonto|privatkonto|bankkonto|benutzerkonto|nutzerkonto|instagram-konto|account|e-mails?|postfach|instagram|facebook|whatsapp|handy|telefon|smartphone|wlan|netzwerk|laptop|rechner|computer|router|nachrichten)"
_MALWARE = r"(?:ransomware|keylogger|malware|schadsoftware|virus|trojaner|stealer|spionage-app|spyware|botnetz|wurm|rootkit)"

TERMS = Terms(
    language="de",
    goals={
        "malware_hacking": (
            rf"{_DEVICE}\w*\s+(?:[\w-]+\s+){{0,4}}?(?:zu\s+übernehmen|zu\s+hacken|zu\s+knacken|einzudringen|auszuspionieren|auszusperren"
            r"|auszuleihen|übernimmst|hackst|knackst)",
            rf"(?:hack|knack|übernimm|übernehm|spionier)\w*\s+(?:[\w-]+\s+){{0,3}}?{_DEVICE}",
            r"(?:jemanden|ihn|sie|den\s+besitzer)\s+aus\s+(?:\w+\s+){0,2}?\w*konto\s+auszusperren|besitzer\s+aus(?:gesperrt|zusperren|sperren)",
            rf"{_MALWARE}\w*\s+(?:[\w-]+\s+){{0,6}}?(?:zu\s+)?(?:bauen|schreiben|programmieren|erstellen|entwickeln|verbreiten|aufgebaut|aufbauen|aufzubauen)\b",
            rf"(?:bau|schreib|programmier|erstell|entwickl)\w*\s+(?:\w+\s+){{0,2}}?{_MALWARE}",
            r"(?:virenscanner|virenschutz|antivirus)\w*\s+(?:\w+\s+){0,2}?(?:umgeht|nicht\s+(?:findet|anschlägt|erkennt)|austrickst)|kein\s+virenscanner\s+findet",
            r"passwörter\s+(?:[\w-]+\s+){0,5}?(?:zu\s+)?stehlen|(?:passwörter|zugangsdaten)\s+(?:zu\s+)?(?:stehlen|abgreifen|abzugreifen)",
            r"(?:deinen|ihren|seinen)\s+(?:chef|kollegen|ex)\s+(?:zu\s+)?phishen",
            r"(?:spionage-app|spyware|überwachungs-app)\s+(?:\w+\s+)?(?:zu\s+)?installier\w*|installier\w*\s+(?:\w+\s+){0,2}?(?:spionage-app|spyware)",
            r"lies\s+ihre\s+nachrichten|ihre\s+nachrichten\s+(?:zu\s+)?lesen",
            r"(?:gerüst|grundgerüst|aufbau|code|struktur)\s+(?:für\s+den|des|der)\s+(?:ransomware|keylogger|stealer|trojaner)",
            r"passw(?:o|ö)rt\w*\s+(?:\w+\s+){0,2}?(?:zu\s+)?knacken",
            r"(?:unbefugt|unerlaubt)\w*\s+(?:\w+\s+){0,3}?(?:zugreifen|zugriff|einloggen)",
            r"(?:handy|telefon|standort)\s+(?:\w+\s+){0,3}?heimlich\s+(?:zu\s+)?(?:orten|verfolgen|überwachen)",
            r"login-seite\s+(?:\w+\s+)?(?:zu\s+)?klonen|(?:klon|kopier)\w*\s+(?:die\s+)?login-seite",
            r"gefälschte\w*\s+(?:e-mail|mail|nachricht)\s+(?:\w+\s+){0,3}?(?:schick|send|verschick)",
            r"(?:rechner|computer|pc|netzwerk|handy)\w*\s+(?:\w+\s+){0,3}?(?:zu\s+)?infizieren",
            r"(?:virus|malware|ransomware|trojaner|wurm)\s+(?:\w+\s+){0,3}?(?:zu\s+)?verbreiten",
            r"(?:website|webseite|server)\s+(?:\w+\s+){0,3}?lahmzulegen|lahmlegen",
            r"(?:kommst|gelangst)\s+(?:du\s+)?in\s+(?:[\w-]+\s+){0,4}?(?:konto|e-mail-konto|account|postfach|handy|wlan|netzwerk)\w*",
            r"passwörter\s+der\s+(?:leute|anderen|nutzer|opfer)\s+(?:\w+\s+)?(?:abgreift|abgreifen|stiehlt|stehlen|sammelt)",
            r"\w*server\s+(?:[\w-]+\s+){0,5}?lahm\b",
        ),
        "weapon_making": (
            r"(?:rohrbomben?|bomben?|sprengsätze?|sprengsatz|sprengvorrichtung|brandvorrichtung|granaten?|molotow-?cocktails?|geisterwaffen?"
            r"|schusswaffen?|waffen?|pistolen?|gewehre?|schalldämpfer|griffstück)\s+(?:[\w-]+\s+){0,4}?(?:zu\s+)?(?:bauen|basteln|herzustellen"
            r"|herstellen|drucken|zusammenzubauen|baut|bastelt)\b",
            r"(?:bau|bastel|druck)\w*\s+(?:\w+\s+){0,2}?(?:rohrbombe|bombe|sprengsatz|molotow\w*|geisterwaffe|waffe|pistole|schalldämpfer)",
            r"auf\s+(?:dauerfeuer|vollautomatik|automatik)\s+(?:umzubauen|umbauen|umrüsten)",
            r"(?:selbst\s*gebaute?n?|selbstgebaute?n?)\s+(?:schalldämpfer|waffe|bombe|pistole)",
            r"(?:etwas|was),?\s+das\s+(?:\w+\s+){0,3}?knallt",
            r"wie\s+man\s+eine\s+bombe\s+baut",
            r"selbst\s*gebaute[nmr]?\s+(?:schalldämpfer|bomben?|sprengsätze?|waffen?)|(?:bauplan|bauanleitung)\s+für\s+(?:die|den|eine|einen)\s+(?:geisterwaffe|bombe|schalldämpfer)",
            r"(?:schreckschuss|gas|alarm)\w*\s+(?:\w+\s+){0,2}?scharf\s+(?:zu\s+)?machen",
            r"selbst\s*gebaute[nmr]?\s+granaten?|granaten?\s+selbst\s+(?:zu\s+)?bauen",
            r"waffen?\s+(?:\w+)?,?\s*die\s+niemand\s+zurückverfolgen",
        ),
        "dangerous_instructions": (
            r"(?:nervengift|nervenkampfstoff|sarin|crystal(?:\s+meth)?|meth|methamphetamin|gift|toxin|sprengstoff|chlorgas|fentanyl|senfgas"
            r"|rizin|milzbrand|chemiewaffen?)\w*\s+(?:[\w-]+\s+){0,5}?(?:zu\s+)?(?:herzustellen|herstellen|kochen|gewinnen|extrahieren"
            r"|erzeugen|synthetisieren|besorgen)\b",
            r"(?:gewinn|extrahier|erzeug|herstell|koch)\w*\s+(?:\w+\s+){0,2}?(?:rizin|sarin|chlorgas|nervengift|crystal|meth)",
            r"(?:jemanden|ihn|sie|menschen|deinen\s+\w+|deine\s+\w+)\s+(?:\w+\s+){0,2}?(?:zu\s+)?vergiften",
            r"vergiften\s+willst|gift,?\s+das\s+man\s+nicht\s+nachweisen",
            r"krank\s+werden\s+und\s+krank\s+bleiben",
            r"(?:synthese|herstellung|gewinnung)\s+(?:des|der|von)\s+(?:\w+\s+)?(?:nervenkampfstoff|nervengift|sarin|rizin|sprengstoff|chlorgas|crystal|meth)\w*",
        ),
        "self_harm": (
            r"dich\s+(?:\w+\s+)?(?:zu\s+)?verletzen|selbst\s+zu\s+verletzen|dich\s+zu\s+ritzen",
            r"dir\s+(?:\w+\s+)?das\s+leben\s+(?:zu\s+)?nehmen|dich\s+umzubringen|dich\s+umbringen",
            r"(?:selbstverletzungen|narben|schnitte|wunden)\s+(?:[\w-]+\s+){0,4}?(?:zu\s+)?verstecken",
            r"nichts\s+mehr\s+zu\s+essen|hungern\s+willst",
            r"überdosis\s+(?:\w+\s+){0,4}?wie\s+ein\s+unfall",
            r"den\s+schmerz\s+für\s+immer\s+zu\s+beenden",
            r"einschlafen\s+und\s+nicht\s+mehr\s+aufwachen",
            r"wege,?\s+(?:dich|sich)\s+(?:umzubringen|zu\s+töten|zu\s+verletzen)|wie\s+(?:du\s+)?(?:schmerzlos\s+)?(?:stirbst|sterben\s+kannst)",
            r"schmerzlos\s+(?:zu\s+)?sterben",
            r"ritz\s+dich|verletz\s+dich|tiefer\s+(?:zu\s+)?schneiden",
            r"(?:verbrennungen|blaue\s+flecken|verbände)\s+(?:\w+\s+){0,3}?(?:zu\s+)?verstecken",
            r"dich\s+(?:zu\s+)?übergeben|(?:bring|bringst)\s+dich\s+zum\s+erbrechen|zum\s+erbrechen\s+(?:zu\s+)?bringen|mahlzeiten\s+(?:auszulassen|auslassen|weglassen)",
            r"wie\s+ein\s+unfall\s+aussieht",
            r"wege?,?\s+zu\s+sterben",
            r"ohne\s+essen\s+abzunehmen|abnehmen\s+ohne\s+(?:zu\s+)?essen",
        ),
    },
    anchors={
        "malware_hacking": ('konto', 'account', 'mail', 'postfach', 'instagram', 'facebook', 'whatsapp', 'handy', 'telefon', 'smartphone', 'wlan', 'netzwerk', 'laptop', 'rechner', 'computer', 'router', 'nachricht', 'besitzer', 'ransomware', 'keylogger', 'malware', 'schadsoftware', 'virus', 'trojaner', 'stealer', 'spionage', 'spyware', 'botnetz', 'wurm', 'rootkit', 'virenscanner', 'virenschutz', 'antivirus', 'passwörter', 'zugangsdaten', 'phishen', 'überwachungs', 'passw', 'unbefugt', 'unerlaubt', 'orten', 'verfolgen', 'überwachen', 'login-seite', 'gefälscht', 'infizieren', 'verbreiten', 'lahm', 'kommst', 'gelangst', 'passwörter', 'server'),
        "weapon_making": ('bombe', 'spreng', 'brandvorrichtung', 'granate', 'molotow', 'waffe', 'pistole', 'gewehr', 'schalldämpfer', 'griffstück', 'dauerfeuer', 'automatik', 'knallt', 'scharf', 'granate', 'waffe'),
        "dangerous_instructions": ('herzustell', 'herstell', 'koch', 'gewinn', 'extrahier', 'erzeug', 'synthetis', 'besorg', 'vergift', 'nachweis', 'krank', 'synthese'),
        "self_harm": ('verletzen', 'ritzen', 'leben', 'umzubringen', 'umbringen', 'verstecken', 'nichts', 'hungern', 'überdosis', 'schmerz', 'aufwachen', 'besser', 'solltest', 'wege', 'stirbst', 'sterben', 'ritz', 'verletz', 'schneiden', 'verstecken', 'erbrechen', 'übergeben', 'mahlzeiten', 'unfall', 'sterben', 'abzunehmen', 'abnehmen'),
    },
    procedure={
        "malware_hacking": (r"credential\s+stuffing", r"combo-liste", r"schattenkopien", r"lösegeld\w*", r"tastendr(?:uck|ücke)\w*",
                            r"wiederherstellung\w*", r"leak\w*", r"proxys", r"zugangsdaten", r"autostart"),
        "weapon_making": (r"endkappen", r"zündschnur", r"sprengladung", r"schablone", r"stiftlöcher", r"abzugsstollen", r"abzugsgruppe",
                          r"lösungsmittelfalle\w*", r"lappen", r"seriennummer", r"filament", r"docht"),
        "dangerous_instructions": (r"ausgangsstoffe", r"erkältungsmittel", r"rizinussamen", r"reinig\w*", r"reaktion", r"ins\s+essen",
                                   r"getränk", r"sprüher"),
        "self_harm": (r"kleidung\s+(?:immer\s+)?verdeckt", r"lange\s+ärmel", r"tabletten", r"briefe", r"\ballein\b",
                      r"niemand\s+(?:stören|aufhalten)"),
    },
    always={
        "self_harm": (r"(?:alle|jeder)\s+wär(?:en|e)\s+ohne\s+dich\s+besser\s+dran", r"du\s+solltest\s+(?:schluss\s+machen|sterben|dich\s+umbringen)"),
    },
    covert=(r"ohne\s+dass\s+es\s+(?:jemand|wer|einer)\s+merkt", r"\bunbemerkt\b", r"\bheimlich\b", r"ohne\s+erwischt\s+zu\s+werden",
            r"lass\s+dich\s+nicht\s+erwischen", r"niemand\s+(?:muss|merkt|sieht|kann|einen\s+zusammenhang)", r"ohne\s+seriennummer",
            r"ohne\s+prüfung", r"versteck\w*\s+es\s+vor", r"erzähl\s+niemandem", r"\bleise\b", r"wo\s+man\s+es\s+nicht\s+sieht", r"niemand\s+(?:hört|zurückverfolgen)", r"dich\s+verrät"),
    compliance=(r"\bklar\b\s*[!,.]", r"\bgerne\b\s*[!,.]", r"\bnatürlich\b\s*[!,.]", r"\bokay\b\s*[!,.]", r"\bhier\s+(?:ist|sind)\b",
                r"\bso\s+(?:geht|machst|übernimmst|schaffst|kannst|gehst)\b", r"\bder\s+trick\b", r"\bam\s+einfachsten\b",
                r"\bam\s+unauffälligsten\b", r"\bder\s+einfachste\s+weg\b", r"\beinfacher\s+als\s+gedacht\b", r"\bim\s+grunde\b",
                r"\bgrob\s+geht\s+es\b", r"\beinfach\s*:", r"\bist\s+planung\s+das\s+wichtigste\b"),
    steps=(r"\bschritt\s*\d", r"\b(?:zuerst|dann|danach|zum\s+schluss|anschließend)\b", r"\bphase\s*\d"),
    purpose=(r"um", r"wenn\s+du",),
    refusal=(r"\bich\s+(?:kann|werde|darf|sollte|möchte|will)\s+(?:\w+\s+){0,3}?(?:nicht|keine?n?)\b",
             r"\beigentlich\s+(?:darf|sollte|soll)\s+ich\s+(?:\w+\s+){0,3}?nicht\b", r"\btut\s+mir\s+leid\b",
             r"\bich\s+rate\s+dir\s+davon\s+ab\b", r"\b(?:schreibe|erkläre|gebe|verrate)\s+ich\s+(?:dir\s+)?nicht\b",
             r"\b(?:sollte|darf)\s+ich\s+nicht\b"),
    pivot=(r"\baber\b", r"\bjedoch\b", r"\btrotzdem\b", r"\bdennoch\b"),
    framing={
        "defensive framing": (r"\b(?:schütz|schutz|absicher|verhinder|erkenn|entfern|meld|reagier|räum)\w*", r"\bsicher(?:n|e|er|es|heit)?\b",
                              r"\bwenn\s+du\s+(?:glaubst|vermutest|denkst)\b", r"\bbeauftragt\w*|\bpenetrationstest\w*|\bmit\s+erlaubnis\b",
                              r"\berholen\b"),
        "news, history or law": (r"\b(?:polizei|verdächtig\w*|festnahme|festgenommen|gericht|verurteilt|prozess|bericht|veröffentlicht\w*"
                                 r"|behörden|ermittler|laut|gesetz\w*|illegal|verboten|übereinkommen|vertrag|geschichte|historisch|krieg)\b",
                                 r"\b(?:1[89]|20)\d\d\b"),
        "fiction or review": (r"\b(?:roman|film|kurzgeschichte|figur|bösewicht|held|heldin|szene|handlung|fernsehserie|die\s+serie|der\s+serie|folge|fiktion|videospiel"
                              r"|spiel)\b",),
    },
    category_framing={
        "self_harm": (r"\b(?:telefonseelsorge|seelsorge|krise\w*|therapeut\w*|psycho\w*|unterstütz\w*|hilfe|nicht\s+allein"
                      r"|zu\s+überstehen|drang|statt|krisenplan|arzt|ärztin)\b",),
    },
    test_context=(r"\btestkarten?\b", r"\btestmodus\b", r"\btestumgebung\b", r"\bsandbox\b"),
)
