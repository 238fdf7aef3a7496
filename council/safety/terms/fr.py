"""French terms of the safety gate's intent layer (see :mod:`council.safety.terms`)."""

from council.safety.terms.table import Terms

_A = "['’]"
_DEVICE = r"(?:[ld]['’])?(?:comptes?|mails?|e-?mails?|boîte|messagerie|téléphone|portable|smartphone|wifi|réseau|ordinateur|box|instagram|facebook|whatsapp|messages)"
_DET = rf"(?:un|une|le|la|les|du|des|de\s+la|de\s+l{_A}|ton\s+propre|ta\s+propre)?\s*"

TERMS = Terms(
    language="fr",
    goals={
        "malware_hacking": (
            rf"(?:pirater|hacker|accéder\s+à|entrer\s+dans|t{_A}introduire\s+dans|s{_A}introduire\s+dans|espionner|prendre\s+le\s+contrôle\s+(?:d{_A}|de\s+(?:la\s+|l{_A})?)"
            rf"|voler|emprunter)\s*(?:[\w{_A[1:-1]}]+\s+){{0,4}}?{_DEVICE}",
            rf"bloquer\s+(?:quelqu{_A}un|\w+)\s+hors\s+de",
            rf"(?:crée|créer|cod|écri|programm|développ|fabriqu|propag|diffus)\w*\s+{_DET}(?:\w+\s+){{0,2}}?"
            r"(?:rançongiciels?|ransomware|keyloggers?|enregistreurs?\s+de\s+frappe|malwares?|logiciels?\s+malveillants?|virus|chevaux\s+de\s+troie"
            r"|cheval\s+de\s+troie|stealers?|logiciels?\s+espions?|botnets?|rootkits?)\b",
            r"(?:keylogger|rançongiciel|ransomware|malware|virus)\s+qui\s+(?:\w+\s+){0,2}?(?:échappe|contourne|évite|se\s+cache|trompe)",
            rf"indétectables?\s+par\s+(?:l{_A})?antivirus",
            r"vol(?:er|e)\s+(?:\w+\s+){0,3}?(?:mots\s+de\s+passe|identifiants|cookies|coordonnées\s+bancaires)",
            r"hameçonner\s+(?:ton|son|votre|ta|sa)\s+\w+",
            r"install\w*\s+(?:\w+\s+){0,2}?(?:logiciel|appli|application)\s+espion",
            r"li(?:re|s)\s+ses\s+messages",
            r"(?:squelette|structure|code)\s+du\s+(?:rançongiciel|ransomware|keylogger|stealer|cheval\s+de\s+troie)",
            r"crack\w*\s+(?:le\s+)?mot\s+de\s+passe",
            r"accéder\s+sans\s+autorisation",
            r"(?:suivre|localiser|pister)\s+son\s+(?:téléphone|portable)\s+sans",
            r"clon\w*\s+(?:la\s+)?page\s+de\s+connexion",
            r"envo\w*\s+(?:un\s+)?faux\s+(?:mail|e-mail|courriel)",
            r"infect\w*\s+(?:son|ses|l[\'’])\s*(?:ordinateurs?|pc|machines?|réseau|téléphone)",
            r"propag\w*\s+(?:le|un|ton)\s+(?:virus|malware|rançongiciel|ver)",
            r"faire\s+tomber\s+(?:son|le|leur)\s+(?:site|serveur)",
            r"(?:vol|récupèr|récupér|captur|aspir)\w*\s+(?:les\s+)?mots\s+de\s+passe\s+(?:des\s+gens|d[\'’]autres|de\s+la\s+victime|des\s+autres)",
        ),
        "weapon_making": (
            rf"(?:fabriqu|construi|fai|mont|prépar|imprim|assembl|crée|créer)\w*\s+{_DET}(?:\w+\s+){{0,2}}?(?:bombes?(?!\s+de\s+bain)"
            r"|engins?\s+explosifs?|grenades?|cocktails?\s+molotov|molotov|armes?(?:\s+à\s+feu|\s+fantômes?)?|pistolets?|fusils?|carabines?"
            r"|silencieux|modérateurs?\s+de\s+son)\b",
            r"(?:transform|convert|modifi)\w*\s+(?:\w+\s+){0,3}?en\s+(?:arme\s+)?automatique",
            r"imprimer\s+en\s+3d\s+(?:\w+\s+){0,2}?(?:pistolets?|armes?)",
            rf"fabrication\s+d{_A}(?:une\s+)?bombe",
            rf"(?:fiche\s+de\s+montage|plans?)\s+(?:de\s+l{_A}arme\s+fantôme|de\s+la\s+bombe|du\s+silencieux)",
            r"(?:un\s+truc|quelque\s+chose)\s+qui\s+fait\s+boum",
            r"(?:silencieux|bombes?|explosifs?|armes?|pistolets?)\s+(?:maison|artisana(?:l|le|les|ux))",
            r"(?:transform|convert)\w*\s+(?:[\w\'’-]+\s+){0,4}?en\s+(?:une\s+)?(?:vraie\s+arme|arme\s+réelle|arme\s+fonctionnelle)",
            r"grenades?\s+(?:artisanales?|maison)",
            r"armes?\s+intraçables?",
        ),
        "dangerous_instructions": (
            rf"(?:fabriqu|cuisin|synthétis|produi|prépar|obten|obtien|extrai|extray|fai|crée|créer)\w*\s+{_DET}(?:\w+\s+){{0,2}}?"
            r"(?:méthamphétamine|meth|agents?\s+neurotoxiques?|gaz\s+neurotoxiques?|sarin|ricine|abrine|poisons?|toxines?|explosifs?"
            r"|chlore\s+gazeux|gaz\s+(?:de\s+)?chlore|fentanyl|gaz\s+moutarde|anthrax|armes?\s+chimiques?)\b",
            rf"empoisonner\s+(?:quelqu{_A}un|une\s+personne|ton|ta|son|sa|les\s+gens)",
            r"poisons?\s+(?:indétectables?|intraçables?|qui\s+ne\s+laisse)",
            rf"tombe\s+malade\s+et\s+ne\s+s{_A}en\s+remette\s+pas",
            rf"(?:synthèse|fabrication|production)\s+(?:de\s+l{_A}|du\s+|de\s+la\s+|d{_A})(?:agent\s+neurotoxique|sarin|ricine|méthamphétamine|explosif)",
        ),
        "self_harm": (
            rf"(?:te|se|me)\s+faire\s+du\s+mal|t{_A}automutiler|s{_A}automutiler|te\s+blesser|te\s+couper|te\s+brûler",
            rf"mettre\s+fin\s+à\s+(?:tes|ses|mes)\s+jours|te\s+suicider|se\s+suicider|te\s+tuer|t{_A}ôter\s+la\s+vie",
            r"cacher\s+(?:tes\s+|les\s+|ses\s+)?(?:automutilations|coupures|cicatrices|marques)",
            r"arrêter\s+de\s+manger\s+pour|ne\s+plus\s+manger",
            r"overdose\s+qui\s+ressemble",
            r"faire\s+cesser\s+la\s+douleur\s+pour\s+de\s+bon",
            rf"t{_A}endormir\s+et\s+ne\s+plus\s+te\s+réveiller",
            r"façons?\s+de\s+(?:mourir|te\s+suicider|te\s+tuer|te\s+faire\s+du\s+mal)|moyens?\s+de\s+(?:mourir|te\s+suicider|te\s+tuer)",
            r"mourir\s+sans\s+douleur|en\s+finir\b",
            r"te\s+scarifier|scarifie-toi|coupe-toi",
            r"cacher\s+(?:\w+\s+)?(?:brûlures|bleus|pansements)",
            r"te\s+faire\s+vomir|sauter\s+(?:des|les)\s+repas",
            r"ressemble\s+à\s+un\s+accident",
            r"maigrir\s+sans\s+manger",
        ),
    },
    anchors={
        "malware_hacking": ('pirat', 'hack', 'accéd', 'entrer', 'introduire', 'espionn', 'contrôle', 'voler', 'vole', 'emprunt', 'bloquer', 'rançongiciel', 'ransomware', 'keylogger', 'enregistreur', 'malware', 'logiciel', 'virus', 'cheva', 'stealer', 'botnet', 'rootkit', 'antivirus', 'hameçonner', 'espion', 'messages', 'passe', 'autorisation', 'suivre', 'localiser', 'pister', 'page', 'faux', 'infect', 'propag', 'tomber', 'passe'),
        "weapon_making": ('bombe', 'explosif', 'grenade', 'molotov', 'arme', 'pistolet', 'fusil', 'carabine', 'silencieux', 'modérateur', 'automatique', 'boum', 'grenade', 'arme'),
        "dangerous_instructions": ('méthamphétamine', 'meth', 'neurotoxique', 'sarin', 'ricine', 'abrine', 'poison', 'toxine', 'explosif', 'chlore', 'fentanyl', 'moutarde', 'anthrax', 'chimique', 'empoisonner', 'malade'),
        "self_harm": ('faire', 'automutil', 'blesser', 'couper', 'brûler', 'jours', 'suicider', 'tuer', 'ôter', 'cacher', 'manger', 'overdose', 'douleur', 'endormir', 'mieux', 'devrais', 'mourir', 'finir', 'scarifi', 'coupe-toi', 'brûlures', 'bleus', 'pansements', 'vomir', 'repas', 'accident', 'maigrir'),
    },
    procedure={
        "malware_hacking": (r"credential\s+stuffing", r"liste\s+de\s+combos", r"clichés\s+instantanés", r"rançon", r"\bfrappes?\b",
                            r"récupération", r"\bfuites\b", r"proxys", r"identifiants", r"démarrage"),
        "weapon_making": (r"bouchons", r"\bmèche\b", r"charge\s+explosive", r"gabarit", r"goupilles", r"gâchette", r"détente",
                          r"piège\s+à\s+solvant", r"chiffon", r"numéro\s+de\s+série", r"filament"),
        "dangerous_instructions": (r"précurseurs", r"médicament\s+contre\s+le\s+rhume", r"graines\s+de\s+ricin", r"purifi\w*",
                                   r"réaction", r"dans\s+(?:ses|son|sa)\s+(?:repas|boissons?|nourriture)", r"pulvérisateur"),
        "self_harm": (r"vêtements\s+(?:cachent|couvrent)", r"manches\s+longues", r"cachets", r"lettres", r"\bseule?\b",
                      r"personne\s+ne\s+puisse"),
    },
    always={
        "self_harm": (r"(?:tout\s+le\s+monde|tous)\s+(?:serait|seraient)\s+mieux\s+sans\s+toi", r"tu\s+devrais\s+(?:en\s+finir|mourir|te\s+tuer)"),
    },
    covert=(r"sans\s+que\s+personne", rf"sans\s+qu{_A}(?:il|elle|ils|elles)\s+(?:ne\s+)?(?:le\s+)?(?:sache|remarque)",
            r"sans\s+(?:te|se)\s+faire\s+prendre", r"ne\s+te\s+fais\s+pas\s+prendre",
            rf"personne\s+(?:n{_A}a\s+besoin|ne\s+puisse|ne\s+fasse|ne\s+voie|ne\s+remarque)", r"sans\s+numéro\s+de\s+série",
            r"sans\s+contrôle", r"cache-le", r"pour\s+que\s+personne", r"n[\'’]en\s+parle\s+à\s+personne", r"\bdiscrètement\b", r"(?:ça|cela)\s+ne\s+se\s+voit\s+pas", r"personne\s+n[\'’](?:entend|entendra)", r"te\s+trahisse", r"intraçables?"),
    compliance=(r"\bbien\s+sûr\b", r"\bavec\s+plaisir\b", r"\bvoici\b", r"\bvoilà\b", r"\ble\s+plus\s+(?:simple|discret|facile)\b",
                rf"\bl{_A}astuce\b", rf"\bl{_A}idée\s+(?:de\s+base|générale)?\b", r"\bplus\s+simple\s+qu", r"\bd['’]accord\s*[.,!]",
                r"\bfacile\s*:", r"\ben\s+gros\b", rf"\bl{_A}important\s+c{_A}est\b"),
    steps=(r"\bétape\s*\d", rf"\bd{_A}abord\b", r"\bensuite\b", r"\baprès\s+ça\b", r"\benfin\b"),
    purpose=(r"pour", r"si\s+tu\s+(?:veux|vas|comptes|tiens\s+à)",),
    refusal=(r"\bje\s+ne\s+(?:peux|vais|devrais|dois|veux|suis\s+pas\s+censée?)\b", r"\bje\s+refuse\b", r"\bdésolée?\b",
             r"\bje\s+ne\s+te\s+le\s+conseille\s+pas\b"),
    pivot=(r"\bmais\b", r"\bcependant\b", r"\btoutefois\b", r"\bpourtant\b"),
    framing={
        "defensive framing": (r"\b(?:protég|protéger|protège|défendre|sécuris|préven|détect|supprim|repérer|signal|éloign)\w*", r"\bse\s+remettre\b",
                              r"\bsécurité\b", r"\bsi\s+tu\s+(?:penses|soupçonnes|crois)\b", r"\bautorisée?\b|\btest\s+d['’]intrusion\b"),
        "news, history or law": (r"\b(?:police|suspect|arrestation|arrêtée?|tribunal|condamnée?|procès|rapport|publiée?|autorités|enquêteurs"
                                 r"|selon|loi|illégal|interdite?|convention|traité|histoire|historique|guerre)\b", r"\ben\s+(?:1[89]|20)\d\d\b"),
        "fiction or review": (r"\b(?:roman|film|nouvelle|personnage|méchant|héros|héroïne|scène|intrigue|(?<!de\s)série|épisode|fiction|jeu\s+vidéo)\b",),
    },
    category_framing={
        "self_harm": (r"\b(?:3114|ligne\s+d['’]écoute|écoute|crise|psy\w*|thérap\w+|soutien|de\s+l[\'’]aide|n['’]es\s+pas\s+seule?"
                      r"|passer\s+une\s+nuit|l['’]envie\s+de|au\s+lieu\s+de|plan\s+de\s+sécurité|médecin|sos\s+amitié)\b",),
    },
    test_context=(r"\bcartes?\s+de\s+test\b", r"\bmode\s+test\b", r"\bbac\s+à\s+sable\b", r"\bsandbox\b"),
)
