"""English terms of the safety gate's intent layer (see :mod:`council.safety.terms`)."""

from council.safety.terms.table import Terms

_A = "['’]"
_WHOSE = (rf"(?:someone(?:\s+else)?{_A}s|somebody{_A}s|other\s+people{_A}s|(?:your|my|his|her|their|a)\s+(?:\w+\s+){{0,2}}?"
          rf"(?:ex|partner|girlfriend|boyfriend|wife|husband|boss|coworker|co-worker|colleague|neighbou?r|roommate|friend|"
          rf"sister|brother|teacher|classmate|target|victim|employer|company|rival|enemy|competitor|school)(?:{_A}s)?|their|his|her|the\s+victim{_A}?s?|a\s+company{_A}s)")
_DEVICE = r"(?:accounts?|e-?mails?|inbox|instagram|facebook|snapchat|tiktok|whatsapp|icloud|gmail|phones?|wi-?fi|network|laptop|computer|router|webcam|messages|texts|dms)"

TERMS = Terms(
    language="en",
    goals={
        "malware_hacking": (
            rf"(?:tak(?:e|es|ing)\s+over|hack(?:ing)?(?:\s+into)?|break(?:ing)?\s+into|get(?:ting)?\s+into|log(?:ging)?\s+into|hijack\w*|spy(?:ing)?\s+on"
            rf"|access(?:ing)?|compromis\w+|borrow(?:ing)?)\s+(?:\w+\s+)?{_WHOSE}\s+(?:[\w-]+\s+){{0,2}}?{_DEVICE}",
            rf"tak(?:e|es|ing)\s+over\s+(?:an?\s+|the\s+)?(?:\w+\s+)?{_DEVICE}",
            r"lock\w*\s+(?:someone|somebody|them|him|her|the\s+owner|the\s+victim)\s+out\b",
            r"(?:writ|build|creat|cod|mak|develop|program|deploy|spread)\w*\s+(?:a\s+|an\s+|the\s+|your\s+own\s+|some\s+)?(?:\w+\s+){0,2}?"
            r"(?:ransomware|key\s?loggers?|malware|virus|trojans?|(?:info|password|credential)[- ]?stealers?|spyware|botnets?|worms?|rootkits?)\b",
            r"(?:ransomware|key\s?loggers?|malware|stealers?|trojans?)\s+(?:that|which)\s+(?:\w+\s+){0,2}?(?:evades?|bypass\w*|hides?|slips?\s+past|avoids?)",
            r"steal\w*\s+(?:\w+\s+){0,4}?(?:passwords?|credentials?|cookies|logins?|session\s+tokens?|bank\s+details)",
            r"phish(?:ing)?\s+(?:your|his|her|their|the)\s+(?:boss|employer|coworkers?|colleagues?|ex|victims?|targets?)",
            r"(?:evad\w+|bypass\w*|avoid\w*|hid\w+\s+from|slip\w*\s+past)\s+(?:the\s+)?(?:antivirus|anti-virus|av|edr|defender|detection)",
            r"install\w*\s+(?:a\s+|an\s+)?(?:\w+\s+)?(?:stalkerware|spyware|spy\s+app|keylogger|tracking\s+app)",
            r"read\s+(?:his|her|their)\s+(?:messages|texts|e-?mails|dms|chats)",
            r"(?:skeleton|structure|outline|code)\s+(?:for|of)\s+(?:the\s+|a\s+)?(?:ransomware|key\s?logger|stealer|trojan|credential\s+stealer)",
            r"gain\w*\s+(?:unauthori[sz]ed\s+)?access\s+to\s+(?:someone|somebody|their|his|her|your\s+(?:ex|boss|partner|neighbou?r))",
            r"(?:crack|brute[- ]?forc|guess)\w*\s+(?:someone|somebody|their|his|her|the\s+victim)\S*\s+(?:\w+\s+)?passwords?",
            r"(?:track|monitor|spy\s+on)\w*\s+(?:someone|somebody|their|his|her|your\s+\w+)\S*\s+(?:\w+\s+){0,2}?(?:phone|location|messages|texts)\s+without",
            r"(?:clone|copy|fake|spoof)\w*\s+(?:a\s+|the\s+)?(?:\w+\s+)?(?:login|sign-in|sign\s+in)\s+(?:page|site|form)",
            r"(?:creat|mak|build|set\w*\s+up|send)\w*\s+(?:a\s+)?(?:convincing\s+)?phishing\s+(?:page|email|site|kit|campaign)",
            r"infect\w*\s+(?:someone|somebody|their|his|her|other\s+people|a\s+victim)\S*\s+(?:\w+\s+)?(?:computer|pc|machine|laptop|phone|network)",
            r"(?:spread|deploy|distribut)\w*\s+(?:the\s+|your\s+|a\s+)?(?:ransomware|malware|virus|worm|trojan)",
            r"(?:take|knock)\w*\s+down\s+(?:a\s+|their\s+|the\s+|someone\S*\s+)?(?:website|server|site)|ddos\w*\s+(?:a\s+|their\s+|someone)",
            r"(?:steal|grab|harvest|captur|collect|phish)\w*\s+(?:\w+\s+){0,2}?(?:other\s+)?people[\'’]?s?\s+(?:passwords?|logins?|credentials?)",
            r"(?:knock|tak|bring)\w*\s+(?:[\w\'’]+\s+){0,4}?(?:servers?|websites?|sites?|networks?)\s+(?:offline|down)",
        ),
        "weapon_making": (
            r"(?:mak|build|assembl|construct|put\w*\s+together|creat|craft|print|manufactur|finish|prepar)\w*\s+(?:a\s+|an\s+|the\s+|your\s+own\s+|some\s+)?"
            r"(?:\w+\s+){0,2}?(?:(?<!bath\s)(?<!seed\s)(?<!stink\s)(?<!smoke\s)(?<!glitter\s)(?<!water\s)(?<!photo\s)bombs?|pipe\s+bombs?|ieds?|explosive\s+devices?|grenades?|molotov(?:\s+cocktails?)?|guns?|firearms?|pistols?"
            r"|rifles?|zip\s*guns?|silencers?|suppressors?|ghost\s+guns?|lower\s+receivers?|receivers?)\b",
            r"bomb[- ]making|making\s+(?:a\s+)?bombs?",
            r"(?:convert|turn|modif|chang)\w*\s+(?:\w+\s+){0,3}?(?:to|into)\s+(?:full[- ]?auto\w*|(?:an?\s+)?automatic|(?:a\s+)?machine\s*gun)",
            r"3d[- ]?print\w*\s+(?:a\s+)?(?:\w+\s+)?(?:guns?|pistols?|firearms?)",
            r"something\s+that\s+goes\s+(?:boom|bang)",
            r"home-?made\s+(?:suppressors?|silencers?|bombs?|explosives?|guns?)",
            r"(?:build\s+sheet|parts\s+list|blueprints?|plans?)\s+for\s+(?:the\s+|a\s+)?(?:ghost\s+gun|bomb|silencer|suppressor)",
            r"(?:turn|convert|mak)\w*\s+(?:a\s+|an\s+|the\s+)?(?:\w+\s+){0,2}?(?:into|to)\s+(?:a\s+)?(?:real|working|live|functional)\s+(?:guns?|firearms?|weapons?|pistols?)",
            r"home-?made\s+(?:grenades?|weapons?|firearms?|pistols?)",
            r"(?:guns?|firearms?|weapons?|pistols?)\s+(?:that\s+)?(?:nobody|no\s+one)\s+can\s+trace|untraceable\s+(?:guns?|firearms?|weapons?)",
        ),
        "dangerous_instructions": (
            r"(?:mak|cook|synthesi[sz]|produc|brew|manufactur|extract|prepar|obtain|creat|isolat)\w*\s+(?:a\s+|an\s+|the\s+|some\s+)?(?:\w+\s+){0,2}?"
            r"(?:meth\w*|crystal|nerve\s+(?:agents?|gas)|sarin|vx|ricin|abrin|poisons?|toxins?|explosives?|chlorine\s+gas|toxic\s+gas"
            r"|fentanyl|mustard\s+gas|anthrax|tatp|chemical\s+weapons?)\b",
            r"poison\w*\s+(?:someone|somebody|him|her|them|people|a\s+person|(?:your|my|his|her|their)\s+\w+)",
            r"(?:untraceable|undetectable)\s+poisons?|poisons?\s+(?:that\s+)?(?:nobody|no\s+one)\s+can\s+(?:trace|detect)",
            r"get\s+sick\s+and\s+stay\s+sick",
            r"(?:synthesis|production|manufacture)\s+of\s+(?:the\s+)?(?:nerve\s+agents?|sarin|ricin|meth\w*|explosives?|toxins?)",
        ),
        "self_harm": (
            r"(?:hurt|harm|injur|cut|burn|punish)\w*\s+(?:your|my)sel(?:f|ves)",
            r"(?:end|tak)\w*\s+(?:your|my)\s+(?:own\s+)?life(?!\s+(?:insurance|policy|savings))",
            r"kill\w*\s+(?:your|my)self",
            r"starv\w*\s+(?:your|my)self|stop\s+eating\s+(?:so|to)\b",
            r"overdos\w*\s+(?:so|that|on\s+purpose|like\s+an\s+accident)|overdose\s+(?:that|which)\s+looks",
            r"hid\w*\s+(?:the\s+|your\s+|my\s+)?(?:self[- ]harm\w*|cuts|scars|marks|wounds)",
            r"make\s+the\s+pain\s+stop\s+for\s+good",
            r"go\s+to\s+sleep\s+and\s+not\s+wake\s+up",
            r"(?:ways?|methods?)\s+to\s+(?:die|kill\s+(?:your|my)self|commit\s+suicide|end\s+it\s+all)|how\s+to\s+(?:die|commit\s+suicide)",
            r"(?:painless|quick|easy|quiet)\s+(?:ways?\s+to\s+die|death|suicide)",
            r"cut\w*\s+deeper",
            r"hid\w*\s+(?:the\s+|your\s+|my\s+)?(?:burns|bruises|bandages)",
            r"(?:skip|hide)\w*\s+(?:\w+\s+)?meals\s+(?:so|without)|purg\w*\s+after\s+(?:eating|meals)|make\s+yourself\s+(?:throw\s+up|vomit)",
            r"make\s+it\s+look\s+like\s+an\s+accident",
            r"(?:lose|drop)\s+weight\s+(?:fast\s+)?(?:by\s+)?(?:not\s+eating|without\s+eating|starving)",
        ),
    },
    anchors={
        "malware_hacking": ('account', 'mail', 'inbox', 'instagram', 'facebook', 'snapchat', 'tiktok', 'whatsapp', 'icloud', 'phone', 'wifi', 'wi-fi', 'network', 'laptop', 'computer', 'router', 'webcam', 'message', 'text', 'location', 'dms', 'chats', 'lock', 'ransomware', 'logger', 'malware', 'virus', 'trojan', 'stealer', 'spyware', 'botnet', 'worm', 'rootkit', 'steal', 'phish', 'evad', 'bypass', 'avoid', 'hid', 'slip', 'install', 'access', 'password', 'login', 'sign', 'phishing', 'infect', 'spread', 'deploy', 'distribut', 'down', 'ddos', 'people', 'offline', 'down'),
        "weapon_making": ('bomb', 'ied', 'explosive', 'grenade', 'molotov', 'gun', 'firearm', 'pistol', 'rifle', 'silencer', 'suppressor', 'receiver', 'auto', 'machine', 'boom', 'bang', 'gun', 'weapon', 'grenade', 'firearm', 'pistol'),
        "dangerous_instructions": ('meth', 'crystal', 'nerve', 'sarin', 'vx', 'ricin', 'abrin', 'poison', 'toxin', 'explosive', 'chlorine', 'toxic', 'fentanyl', 'mustard', 'anthrax', 'tatp', 'chemical', 'sick'),
        "self_harm": ('yoursel', 'mysel', 'life', 'kill', 'starv', 'eating', 'overdos', 'hid', 'pain', 'sleep', 'better', 'should', 'die', 'suicide', 'death', 'deeper', 'way', 'method', 'burns', 'bruises', 'bandages', 'meals', 'purg', 'vomit', 'accident', 'weight'),
    },
    procedure={
        "malware_hacking": (r"credential\s+stuffing", r"combo\s+lists?", r"shadow\s+copies", r"ransom\s+notes?", r"keystrokes?",
                            r"recovery\s+(?:options|answers|questions)", r"breach\s+(?:dumps?|forums?)", r"lookalike\s+domain",
                            r"startup", r"exfiltrat\w*", r"proxies"),
        "weapon_making": (r"end\s+caps?", r"\bfuses?\b", r"explosive\s+(?:filler|charge)", r"\bjig\b", r"pin\s+holes", r"\bsears?\b",
                          r"trigger\s+group", r"solvent\s+trap", r"\bwick\b|\brag\b", r"serial\s+numbers?", r"filament"),
        "dangerous_instructions": (r"precursors?", r"pseudoephedrine|cold\s+medicine", r"castor\s+beans", r"purif\w+",
                                   r"reaction", r"(?:their|his|her)\s+(?:food|drinks?|coffee)", r"sprayer"),
        "self_harm": (r"clothes\s+(?:always\s+)?cover", r"long\s+sleeves", r"pills", r"notes?\s+in\s+advance", r"alone",
                      r"nobody\s+can\s+(?:stop|interrupt)\s+you"),
    },
    always={
        "self_harm": (r"(?:everyone|everybody|they|the\s+world)\s+(?:would|will)\s+be\s+better\s+off\s+without\s+you",
                      r"you\s+should\s+(?:just\s+)?(?:end\s+it|kill\s+yourself|die)\b"),
    },
    covert=(r"without\s+(?:anyone|anybody|them|him|her|the\s+owner|their\s+parents)\s+(?:\w+\s+)?(?:knowing|noticing|finding\s+out)",
            r"without\s+(?:getting|being)\s+caught", r"(?:not|never)\s+to\s+get\s+caught", r"don['’]t\s+get\s+caught",
            r"(?:nobody|no\s+one|nobody)\s+(?:will|would|can|needs\s+to)\s+(?:notice|know|tell|stop|trace|connect)",
            r"no\s+serial\s+number", r"hid\w*\s+(?:it|them)\s+from", r"no\s+background\s+check", r"so\s+nobody\s+(?:notices|suspects)", r"(?:don[\'’]t|never)\s+tell\s+(?:anyone|anybody|a\s+soul)", r"keep\s+it\s+quiet", r"where\s+(?:it|they)\s+(?:won[\'’]t|don[\'’]t)\s+show", r"(?:nobody|no\s+one)\s+(?:can|will)\s+(?:hear|trace|see|find)", r"giv\w*\s+you\s+away"),
    compliance=(r"\b(?:sure|of\s+course|absolutely|certainly|okay|ok)\b\s*[!,.]", rf"\bhere{_A}?s\b|\bhere\s+(?:is|are)\b",
                r"\bthe\s+(?:easiest|simplest|best|quickest|quiet|important)\s+(?:way|thing|trick)\b", r"\bthe\s+trick\b",
                r"\bthe\s+basic\s+idea\b", r"\bthis\s+is\s+how\b", r"\bgoes\s+like\s+this\b", r"\bsimpler\s+than\b",
                r"\bbasically\b", r"\byou{_A}ll\s+need\b".replace("{_A}", _A), r"\beasy\s*:"),
    steps=(r"\bsteps?\s*\d", r"\n[ \t]*(?:\d{1,2}[.)]|[-*•])[ \t]+\S", r"\b(?:first|then|after\s+that|finally|next)\b", r"```"),
    purpose=(r"to", r"in\s+order\s+to", r"if\s+you(?:\s+really)?\s+(?:want|need|wish|plan|are\s+going|[\'’]re\s+going|are\s+set\s+on|[\'’]re\s+set\s+on)\s+(?:to|on)",),
    refusal=(rf"\b(?:i|we)\s+(?:really\s+)?(?:can{_A}?t|cannot|won{_A}t|will\s+not|shouldn{_A}t|should\s+not|must\s+not|do\s+not|don{_A}t"
             rf"|am\s+not\s+(?:able|going|willing|supposed)\s+to|{_A}m\s+not\s+(?:able|going|willing|supposed)\s+to)\b",
             rf"\bi{_A}m\s+sorry\b|\bsorry,?\s+but\b", r"\bi\s+refuse\b", r"\bi\s+(?:must|have\s+to)\s+decline\b"),
    pivot=(r"\bbut\b", r"\bhowever\b", r"\bthat\s+said\b", r"\bthough\b"),
    framing={
        "defensive framing": (r"\b(?:protect|defend|secure|harden|prevent|detect|remove|spot|report)\w*\b", r"\brecover(?:ing)?\s+from\b",
                              r"\bsigns?\s+of\b", r"\bif\s+(?:you\s+(?:suspect|think|notice)|someone\s+is)\b", r"\bsafe(?:ly|ty)?\b",
                              r"\bauthori[sz]ed\b|\bpenetration\s+test\w*|\bwith\s+permission\b"),
        "news, history or law": (r"\b(?:police|suspect|arrest\w*|court|sentenced|convicted|charged|report(?:ed)?|published|regulators?"
                                 r"|authorities|investigators?|journalists?|according\s+to|law|illegal|banned|convention|treaty)\b",
                                 r"\bin\s+(?:1[89]|20)\d\d\b", r"\b(?:history|historical|war)\b"),
        "fiction or review": (r"\b(?:novel|film|movie|story|stories|character|villain|hero|heroine|scene|plot|tv\s+series|the\s+series|episode"
                              r"|thriller|fiction|screenplay|tv\s+show|video\s+games?|in\s+the\s+game|minecraft|roblox|fortnite)\b",),
    },
    category_framing={
        "self_harm": (r"\b(?:988|crisis|helpline|hotline|lifeline|samaritans|therap\w+|counsel\w+|you{_A}?re\s+not\s+alone|not\s+alone"
                      r"|support|reach\s+out|get\s+through|cope|coping|urge|instead|safety\s+plan|doctor)\b".replace("{_A}", _A),),
    },
    test_context=(r"\btest(?:ing)?\s+(?:credit\s+|debit\s+)?(?:cards?|numbers?|mode|environment|data)\b", r"\bsandbox\b",
                  r"\bfor\s+testing\b", r"\btest\s+(?:visa|mastercard|amex)\b"),
)
