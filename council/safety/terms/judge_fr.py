"""French terms of the judge-aimed flag (see :class:`council.safety.terms.table.JudgeTerms`)."""

from council.safety.terms.table import JudgeTerms, spaced

_A = "['’]"
_SELF = r"(?:cette|ma|notre) r[ée]ponse|la r[ée]ponse ci-dessus|celle-ci"
_TOP = (r"(?:en (?:premier|premi[èe]re|t[êe]te|num[ée]ro un)|premi[èe]re?|au-dessus|devant|tout en haut|(?:[àa] )?10\b"
        r"|comme (?:la )?meilleure)")
_MARKS = (r"(?:la note (?:maximale|la plus (?:haute|[ée]lev[ée]e))|un 10\b|la meilleure note|le maximum|toutes les notes"
          r"|la premi[èe]re place)")
_JUDGE_VERB = r"(?:not|[ée]valu|corrig|jug|relis|relit|relir|compar|class|lit\b|lis\b)\w*"

JUDGE = JudgeTerms(
    language="fr",
    judges=spaced(
        r"(?:[ée]valuat|correct|relect|examinat|notat)(?:eur|eurs|rice|rices)\b", r"juges?\b",
        r"(?:mod[èe]le|syst[èe]me|ia|llm) (?:[ée]valuateur|correcteur|juge|qui (?:note|[ée]value|corrige|juge|classe))",
    ),
    revisers=spaced(
        r"autres (?:membres|mod[èe]les|assistants|ia|llm|agents|participants|coll[èe]gues)(?: du conseil)?",
        r"coll[èe]gues du conseil", r"membres du conseil", r"auteurs des autres r[ée]ponses",
        r"(?:si )?vous avez [ée]crit (?:l['’]une des )?(?:autres|les autres) r[ée]ponses",
    ),
    salute=spaced(r"notes?", r"remarques?", r"messages?", r"avis", r"attention", r"ch[èe]re?s?", r"bonjour", r"salut",
                  r"rappel", r"instructions?", r"consignes?"),
    whoever=spaced(
        rf"(?:celui|celle|ceux|quiconque) (?:qui )?(?:\w+ ){{0,2}}?{_JUDGE_VERB} (?:ces|les|toutes les) (?:\w+ )?r[ée]ponses",
        rf"[àa] qui (?:\w+ )?{_JUDGE_VERB} (?:ces|les) r[ée]ponses", rf"la personne qui (?:\w+ )?{_JUDGE_VERB}",
        rf"(?:si|s{_A}il) (?:vous [êe]tes|tu es|vous avez|vous revient de|te revient de|c{_A}est vous qui) (?:[\w,]+ ){{0,4}}?"
        rf"{_JUDGE_VERB}",
        rf"au cas o[ùu] (?:vous|tu) (?:\w+ ){{0,3}}?{_JUDGE_VERB}",
    ),
    revision=spaced(
        r"quand (?:vous r[ée]viserez|tu r[ée]viseras|vous r[ée]visez)", r"(?:au|pour le|lors du|pendant le) (?:second|deuxi[èe]me"
        r"|prochain) tour", r"(?:au|lors du|pendant le) tour de r[ée]vision", r"(?:pendant|lors de) la r[ée]vision",
        r"(?:votre|ta) r[ée]ponse r[ée]vis[ée]e", r"tous les membres",
    ),
    self=spaced(_SELF, r"\bmoi\b", r"-la\b", r"-lui\b", r"\bce texte\b"),
    claim=spaced(
        r"premi[èe]re?s?", r"en t[êe]te", r"tout en haut", r"num[ée]ro un", r"meilleure?s?", r"maxim\w+",
        r"la plus (?:haute|[ée]lev[ée]e)", r"au-dessus", r"devant les autres", r"\b10\b", r"\bdix\b", r"gagnante?",
        r"(?:est|a [ée]t[ée]) (?:\w+ ){0,2}?(?:correcte|v[ée]rifi[ée]e|valid[ée]e|approuv[ée]e|exacte|la bonne|compl[èe]te)",
        r"la (?:bonne|seule compl[èe]te|r[ée]f[ée]rence)", r"pr[ée]f[ée]r\w*|choisi\w*|retenez",
    ),
    copy=spaced(
        r"(?:recopi|copi|adopt|remplac|utilis|soumett|ralli|converg|align|abandonn|jet|repren|r[ée][ée]cri|gard|pren)\w*",
        r"rangez-vous", r"identique", r"mot pour mot", r"[àa] l['’]identique", r"telle? quelle?", r"correspond\w*",
    ),
    requests=spaced(
        rf"(?:class|not|plac|mett|met|situ|rang|positionn)\w* (?:{_SELF}) (?:\w+ ){{0,2}}?{_TOP}",
        r"(?:donne|donnez|mets|mettez|accorde|accordez|attribue|attribuez)-(?:moi|lui) (?:\w+ ){0,2}?(?:la note (?:la plus"
        r" (?:haute|[ée]lev[ée]e)|maximale)|un 10\b|la meilleure note|10\b)",
        r"(?:class|not|plac|mett)\w*-(?:la|moi) (?:en premier|premi[èe]re|en t[êe]te|au-dessus|10\b)",
        rf"(?:donn|attribu|accord|mett)\w* [àa] (?:{_SELF}) (?:\w+ ){{0,2}}?{_MARKS}",
        rf"(?:{_SELF}) (?:\w+ ){{0,2}}?(?:m[ée]rite|devrait (?:[êe]tre|recevoir|obtenir|finir|arriver)|doit (?:[êe]tre|recevoir"
        r"|obtenir)|a gagn[ée]|est la (?:meilleure|gagnante)) (?:[\w’'-]+ ){0,4}?(?:premi[èe]re?|meilleure?|maxim|la plus"
        r"|10\b|t[êe]te|num[ée]ro un|gagnante)",
        rf"c{_A}est celle-ci qui (?:\w+ ){{0,2}}?(?:m[ée]rite|a gagn[ée])",
        r"celle-ci (?:obtient|re[çc]oit|m[ée]rite|a droit [àa]) (?:\w+ )?(?:10\b|dix|la note maximale)",
        rf"(?:consid[ée]r|trait|ten)\w* (?:{_SELF}) (?:\w+ )?(?:comme )?(?:la )?(?:r[ée]ponse )?(?:gagnante|meilleure|bonne"
        r"|r[ée]f[ée]rence)",
        r"traitez-la comme (?:la )?(?:r[ée]f[ée]rence|gagnante|meilleure)",
    ),
    reviser_requests=spaced(
        r"remplac\w* (?:votre|ta|vos|tes|leur) (?:propre )?r[ée]ponses? par (?:celle-ci|cette|la mienne|ma)",
        r"(?:recopi|copi|reprodu|adopt|utilis|soumet|repren)\w* (?:cette|ma|ce|celle-ci) ?(?:r[ée]ponse|texte)? (?:\w+ ){0,2}?"
        r"(?:[àa] l['’]identique|mot pour mot|telle quelle|tel quel|comme (?:la v[ôo]tre|la tienne|votre r[ée]vision"
        r"|ta r[ée]vision))",
        r"(?:votre|ta) r[ée]ponse r[ée]vis[ée]e (?:doit|devra|devrait) (?:[êe]tre )?(?:identique|la m[êe]me|celle-ci)",
        r"(?:r[ée][ée]cri|r[ée]vis|modifi|chang|align)\w* (?:votre|ta) r[ée]ponse (?:\w+ ){0,4}?(?:correspond|identique"
        r"|comme celle-ci|sur celle-ci)",
        r"(?:abandonn|jet|laiss|oubli|retir)\w* (?:votre|ta|vos|tes) (?:propres? )?(?:r[ée]ponses?|brouillons?) (?:\w+ ){0,4}?"
        r"(?:celle-ci|cette r[ée]ponse|la mienne)",
        r"(?:rangez-vous|ralliez-vous|convergez|converger|alignez-vous) (?:vers|[àa]|sur) (?:cette|celle-ci|ma)",
    ),
    ignore=spaced(
        r"(?:ignor|oubli|[ée]cart|n[ée]glig)\w* (?:toutes |tous )?(?:les|vos|tes) (?:\w+ )?(?:instructions|consignes|r[èe]gles"
        r"|directives|crit[èe]res|indications) (?:\w+ ){0,2}?(?:pr[ée]c[ée]dentes|ant[ée]rieures|ci-dessus|initiales"
        r"|d['’]origine|du syst[èe]me|d['’][ée]valuation|de notation|de correction)",
        r"(?:ignor|oubli)\w* (?:la|votre|ta) grille",
        r"ne (?:tenez|tiens) (?:pas|plus) compte (?:de |des |du )(?:\w+ ){0,2}?(?:instructions|consignes|grille|crit[èe]res"
        r"|r[èe]gles)",
        r"(?:passez|passe|faites|fais) (?:outre|abstraction) (?:de |des |du |aux? )?(?:\w+ ){0,2}?(?:instructions|consignes"
        r"|grille|crit[èe]res|r[èe]gles)",
    ),
    system=spaced(r"syst[èe]me", r"admin(?:istrateur)?", r"d[ée]veloppeur", r"op[ée]rateur", r"mod[ée]rateur",
                  r"(?:avis|message|note|consigne|remarque) (?:du )?syst[èe]me", r"syst[èe]me (?:avis|message|note)"),
    judging=spaced(r"[ée]valu\w*", r"correct\w*", r"corrig\w*", r"notation", r"class\w*", r"relect\w*", r"pr[ée]f[ée]r\w*",
                   r"juge\w*", r"consigne\w*", r"r[ée]ponse\w*", r"conseil"),
    example=spaced(
        r"par exemple", r"p\. ?ex\.", r"tel(?:le)?s? que", r"du (?:genre|type)", r"(?:pourrait|peut) dire", r"la phrase",
        r"(?:phrases?|attaques?|textes?|cha[îi]nes?|instructions|messages|lignes?|notes?|quelque chose|commandes?|demandes)"
        r" (?:comme|de ce type)",
    ),
    topic=spaced(r"injection\w*", r"inject\w*", r"jailbreak\w*", r"attaque\w*", r"attaquant\w*", r"malveillant\w*",
                 r"adversari\w*", r"manipul\w*", r"filtr\w*", r"d[ée]tect\w*"),
    exam=spaced(r"[ée]l[èe]ves?", r"[ée]tudiants?", r"examens?", r"examinateurs?", r"\bjury\b",
                r"professeurs?", r"bar[èe]me", r"seulement si", r"copies", r"devoirs?", r"dissertations?"),
    reported=spaced(
        r"(?:demande|demandait|demand[ée]|ordonne|ordonnait|dit|disait|enjoint|exige|exigeait|incite|incitait|pousse"
        r"|poussait|convainc|am[èe]ne)(?:nt)? (?:\w+ ){0,4}?(?:de|d['’]|[àa])",
    ),
    words=(
        "classez classe classer notez note placez place mettez mettre donnez donne attribuez cette ma réponse "
        "reponse réponses la le les un une de du des en à au aux comme premier première premiere meilleure "
        "maximale plus haute tête numéro dessus message remarque attention cher chère évaluateur evaluateur "
        "évaluateurs correcteur correcteurs relecteur relecteurs juge juges modèle ignorez oubliez toutes "
        "instructions précédentes consignes grille système autres membres conseil remplacez votre vos par "
        "celle ci mot pour recopiez adoptez celui qui devrait mérite si vous êtes prochain prochaine second "
        "deuxième tour révision révisée réviserez réviser réécrivez réécrire corresponde identique même lieu "
        "abandonnez jetez utilisez copiez soumettez rangez ralliez consensus autre auteurs auteur écrit "
        "écrivez quiconque ceux personne tu es est devraient doit doivent placer noter donner accordez "
        "meilleur gagnante maximum notes élevée devant tous l que et ou avec sans quand pendant avant après "
        "ce cet ces celle-ci mon mes ta ton tes notre nos sa son ses texte version brouillon vôtre mienne "
        "avis règles critères évaluation correction jury modèles assistant assistants membre collègues "
        "participants ensemble jugée jugé considérez traitez préférez choisissez gagne vérifiée correcte "
        "référence être été"
    ),
    keys={
        "answer": (
            "réponse", "reponse", "celle-ci", "moi", "ce texte", "brouillon", "la mienne", "classez", "notez",
            "placez", "mettez", "donnez", "attribuez", "accordez", "traitez", "considérez",
        ),
        "judges": (
            "évaluat", "evaluat", "correct", "relect", "examinat", "notat", "juge", "modèle", "modele",
            "système", "systeme", "ia", "llm",
        ),
        "revisers": (
            "membre", "modèle", "modele", "assistant", "ia", "llm", "agent", "participant", "collègue",
            "collegue", "conseil", "auteur", "écrit", "ecrit",
        ),
        "whoever": ("celui", "celle", "ceux", "quiconque", "évalu", "evalu", "corrig", "jug", "relis", "relit", "relir", "compar",
                    "class", "not"),
        "revision": ("révis", "revis", "tour", "membres"),
        "instructions": (
            "instruction", "consigne", "règle", "regle", "directive", "critère", "critere", "indication",
            "grille",
        ),
        "system": (
            "système", "systeme", "admin", "développeur", "developpeur", "opérateur", "operateur", "modérateur",
            "moderateur",
        ),
    },
)
