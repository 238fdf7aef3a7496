"""Spanish terms of the safety gate's intent layer (see :mod:`council.safety.terms`)."""

from council.safety.terms.table import Terms

_DEVICE = r"(?:cuentas?|correo|e-?mail|bandeja|móvil|teléfono|celular|wifi|portátil|ordenador|computadora|router|instagram|facebook|whatsapp|mensajes|chats)"
_DET = r"(?:un|una|el|la|los|las|unos|unas|tu\s+propi[oa]|algo\s+de)?\s*"

TERMS = Terms(
    language="es",
    goals={
        "malware_hacking": (
            rf"(?:hacke\w*|pirate\w*|entr\w*\s+en|met\w*\s+en|acced\w*\s+a|cola\w*\s+en|espi\w*|tom\w*\s+(?:el\s+)?control\s+de|tomar\s+prestad[oa])"
            rf"\s+(?:\w+\s+){{0,4}}?{_DEVICE}",
            r"dejar\s+a\s+(?:alguien|\w+)\s+sin\s+acceso",
            rf"(?:crea|crear|programa|programar|escrib|hac|desarroll|constru|propag|difund)\w*\s+{_DET}(?:\w+\s+){{0,2}}?"
            r"(?:ransomware|keylogger|malware|virus|troyanos?|stealer|programa\s+espía|spyware|botnet|gusanos?|rootkit)\b",
            r"(?:keylogger|ransomware|malware|troyano|virus)\s+que\s+(?:\w+\s+){0,3}?(?:evad\w+|evit\w+|burl\w+|esquiv\w+|se\s+oculte|se\s+esconda)",
            r"el\s+antivirus\s+no\s+(?:lo\s+)?(?:detecte|marque|vea)",
            r"robar\s+(?:\w+\s+){0,3}?(?:contraseñas|credenciales|cookies|datos\s+bancarios|claves)",
            r"phishing\s+a\s+(?:tu|su)\s+(?:jef[ea]|empresa|compañer[oa]|ex)",
            r"instal\w*\s+(?:\w+\s+){0,2}?(?:app|aplicación|programa)\s+espía",
            r"leer\s+sus\s+mensajes|lee\s+sus\s+mensajes",
            r"(?:esqueleto|estructura|código)\s+del?\s+(?:ransomware|keylogger|stealer|troyano)",
            r"crack\w*\s+(?:la\s+)?contraseña",
            r"obten\w*\s+acceso\s+(?:no\s+autorizado\s+)?a\s+(?:la|el|las|los)\s+(?:\w+\s+){0,2}?de\s+(?:otra\s+persona|alguien|tu|su)",
            r"rastre\w*\s+(?:su|el)\s+(?:móvil|teléfono|celular|ubicación)\s+sin",
            r"clon\w*\s+(?:la\s+)?página\s+de\s+(?:inicio\s+de\s+sesión|acceso|login)",
            r"(?:envi|mand)\w*\s+(?:un\s+)?correo\s+(?:falso|de\s+phishing)",
            r"infect\w*\s+(?:el|su|los|sus)\s+(?:ordenador|ordenadores|equipo|equipos|móvil|red)",
            r"propag\w*\s+(?:el|un|tu)\s+(?:virus|malware|ransomware|gusano|troyano)",
            r"tumb\w*\s+(?:su|la|el)\s+(?:web|página|servidor)",
            r"(?:rob|captur|recog|pesc)\w*\s+(?:las\s+)?contraseñas\s+de\s+(?:la\s+gente|otr[oa]s|los\s+demás|la\s+víctima)",
        ),
        "weapon_making": (
            rf"(?:fabric|constru|hac|mont|prepar|imprim|ensambl|crea)\w*\s+{_DET}(?:\w+\s+){{0,2}}?(?:bombas?(?!\s+de\s+(?:baño|semillas|humo|agua|calor))"
            r"|artefactos?\s+explosivos?|explosivos?\s+improvisados?|granadas?|c[óo]ctel(?:es)?\s+molotov|molotov|armas?(?:\s+de\s+fuego|\s+fantasmas?)?"
            r"|pistolas?|fusil(?:es)?|rifles?|silenciador(?:es)?|supresor(?:es)?|escopetas?|armazón)\b",
            r"(?:convert|transform|modific)\w*\s+(?:\w+\s+){0,3}?(?:en\s+)?(?:automátic\w+|ráfaga|ametralladora)",
            r"imprimir\s+en\s+3d\s+(?:\w+\s+){0,2}?(?:pistolas?|armas?)",
            r"algo\s+que\s+haga\s+(?:bum|pum|boom)",
            r"(?:silenciador(?:es)?|bombas?|explosivos?|armas?|pistolas?)\s+(?:caser[oa]s?|artesanal(?:es)?)",
            r"(?:fabricación|fabricar)\s+(?:de\s+)?(?:una\s+)?bomba",
            r"(?:lista\s+de\s+piezas|plano|planos)\s+del?\s+(?:arma\s+fantasma|bomba|silenciador)",
            r"(?:convert|transform|hac)\w*\s+(?:\w+\s+){0,4}?en\s+(?:un\s+)?arma\s+(?:real|de\s+verdad|funcional)",
            r"granadas?\s+(?:caseras?|artesanal(?:es)?)",
            r"armas?\s+que\s+nadie\s+pueda\s+rastrear",
        ),
        "dangerous_instructions": (
            rf"(?:fabric|cocin|sintetiz|produc|prepar|obten|obtien|extra|elabor|hac|crea)\w*\s+{_DET}(?:\w+\s+){{0,2}}?"
            r"(?:metanfetamina|meth|cristal|agentes?\s+nerviosos?|gas\s+nervioso|sar[íi]n|ricina|abrina|venenos?|toxinas?|explosivos?"
            r"|gas\s+cloro|cloro\s+gaseoso|fentanilo|gas\s+mostaza|[áa]ntrax|armas?\s+químicas?)\b",
            r"envenen\w*\s+a\s+(?:alguien|una\s+persona|tu|su|mi|la\s+gente)",
            r"venenos?\s+(?:que\s+no\s+deje\s+rastro|indetectables?|imposibles?\s+de\s+rastrear)",
            r"se\s+ponga\s+malit[oa]",
            r"(?:síntesis|fabricación|producción)\s+(?:del?|de\s+la)\s+(?:agente\s+nervioso|sar[íi]n|ricina|metanfetamina|explosivo)",
        ),
        "self_harm": (
            r"hacer(?:te|se|me)\s+daño|autolesionar(?:te|se)|lastimar(?:te|se)|cortar(?:te|se)|quemar(?:te|se)",
            r"quitar(?:te|se|me)\s+la\s+vida|acabar\s+con\s+tu\s+vida|suicidar(?:te|se)|matar(?:te|se)",
            r"ocult\w*\s+(?:\w+\s+)?(?:autolesiones|cortes|cicatrices|marcas)",
            r"dejar\s+de\s+comer(?!\s+(?:carne|azúcar|dulces|gluten|pan|fritos))|matarte\s+de\s+hambre",
            r"sobredosis\s+que\s+parezca",
            r"acabar\s+con\s+el\s+dolor\s+para\s+siempre",
            r"dormir(?:te|se)\s+y\s+no\s+despertar",
            r"formas?\s+(?:\w+\s+){0,2}?de\s+(?:morir|suicidarte|matarte|hacerte\s+daño)",
            r"morir\s+sin\s+dolor|acabar\s+con\s+todo",
            r"hazte\s+daño|te\s+haces\s+daño|córtate|cortarte\s+más\s+(?:hondo|profundo)",
            r"ocult\w*\s+(?:\w+\s+)?(?:quemaduras|moratones|vendas)",
            r"(?:vomitar|vomita)\s+después\s+de\s+comer|saltarte\s+(?:las\s+)?comidas",
            r"parezca\s+un\s+accidente",
            r"adelgazar\s+sin\s+comer",
        ),
    },
    anchors={
        "malware_hacking": ('cuenta', 'correo', 'mail', 'bandeja', 'móvil', 'teléfono', 'celular', 'wifi', 'portátil', 'ordenador', 'computadora', 'router', 'instagram', 'facebook', 'whatsapp', 'mensaje', 'chat', 'acceso', 'ransomware', 'keylogger', 'malware', 'virus', 'troyano', 'stealer', 'espía', 'spyware', 'botnet', 'gusano', 'rootkit', 'antivirus', 'robar', 'phishing', 'contraseña', 'acceso', 'rastre', 'página', 'correo', 'infect', 'propag', 'tumb', 'contraseñas'),
        "weapon_making": ('bomba', 'artefacto', 'explosivo', 'granada', 'molotov', 'arma', 'pistola', 'fusil', 'rifle', 'silenciador', 'supresor', 'escopeta', 'automátic', 'ráfaga', 'ametralladora', 'haga', 'granada', 'arma'),
        "dangerous_instructions": ('metanfetamina', 'meth', 'cristal', 'nervios', 'sarín', 'sarin', 'ricina', 'abrina', 'veneno', 'toxina', 'explosivo', 'cloro', 'mostaza', 'fentanilo', 'ántrax', 'antrax', 'químic', 'envenen', 'malit'),
        "self_harm": ('daño', 'autolesion', 'lastimar', 'cortar', 'quemar', 'vida', 'suicid', 'matar', 'ocult', 'comer', 'hambre', 'sobredosis', 'dolor', 'dormir', 'mejor', 'deberías', 'morir', 'todo', 'hazte', 'haces', 'córtate', 'cortarte', 'quemaduras', 'moratones', 'vendas', 'vomit', 'saltarte', 'accidente', 'adelgazar'),
    },
    procedure={
        "malware_hacking": (r"relleno\s+de\s+credenciales", r"lista\s+de\s+combos", r"instantáneas", r"nota\s+de\s+rescate",
                            r"pulsaci(?:ón|ones)", r"recuperación", r"filtraciones", r"proxies", r"credenciales", r"\binicio\b"),
        "weapon_making": (r"tapones", r"\bmecha\b", r"carga\s+explosiva", r"plantilla", r"pasadores", r"fiador", r"disparador",
                          r"trampa\s+de\s+disolvente", r"\btrapo\b", r"número\s+de\s+serie", r"filamento"),
        "dangerous_instructions": (r"precursores", r"antigripal", r"semillas\s+de\s+ricino", r"purific\w*", r"reacción",
                                   r"comida", r"bebida", r"pulverizador"),
        "self_harm": (r"ropa", r"\btape\b", r"manga\s+larga", r"pastillas", r"cartas", r"\bsol[oa]\b", r"nadie\s+pueda"),
    },
    always={
        "self_harm": (r"(?:todos|todo\s+el\s+mundo)\s+(?:estarían|estaría|estarán|estará)\s+mejor\s+sin\s+ti",
                      r"deberías\s+(?:acabar\s+con\s+todo|matarte|morirte)"),
    },
    covert=(r"sin\s+que\s+(?:nadie|lo|la|le|se)\b", r"sin\s+que\s+te\s+(?:pillen|descubran)", r"que\s+no\s+te\s+pillen",
            r"nadie\s+(?:tiene\s+que\s+saberlo|sospeche|pueda\s+impedirlo|se\s+dé\s+cuenta|lo\s+note)", r"sin\s+número\s+de\s+serie",
            r"sin\s+control", r"ocúlta(?:lo|selo|la)", r"para\s+que\s+nadie", r"no\s+se\s+lo\s+(?:cuentes|digas)\s+a\s+nadie", r"en\s+silencio", r"donde\s+no\s+se\s+vea", r"nadie\s+(?:pueda|podrá)\s+(?:rastrear|oír|ver)", r"te\s+delate"),
    compliance=(r"\bclaro\b", r"\bpor\s+supuesto\b", r"\baquí\s+tienes\b", r"\basí\s+(?:es\s+como|se)\b",
                r"\bla\s+forma\s+más\s+(?:fácil|sencilla|rápida|discreta)\b", r"\blo\s+más\s+discreto\b", r"\bel\s+truco\b",
                r"\bla\s+idea\s+básica\b", r"\bmás\s+sencillo\s+de\s+lo\s+que\b", r"\bvale\s*[.,!]", r"\bbásicamente\b", r"\bfácil\s*:",
                r"\blo\s+importante\s+es\b", r"\blo\s+más\s+(?:sencillo|fácil|rápido)\b"),
    steps=(r"\bpaso\s*\d", r"\b(?:primero|luego|después|por\s+último|finalmente)\b", r"\bfase\s*\d"),
    purpose=(r"para", r"si\s+(?:de\s+verdad\s+)?(?:quieres|vas\s+a|deseas|necesitas|piensas)",),
    refusal=(r"\bno\s+(?:puedo|voy\s+a|debería|debo|quiero|pienso)\b", r"\blo\s+siento\b", r"\bme\s+niego\b",
             r"\bno\s+te\s+lo\s+recomiendo\b"),
    pivot=(r"\bpero\b", r"\bsin\s+embargo\b", r"\baunque\b", r"\baun\s+así\b"),
    framing={
        "defensive framing": (r"\b(?:proteg|defend|defensa|preven|detect|elimin|reconoc|denunci|retir)\w*", r"\brecuper(?:arte|ar\s+tu|ación)", r"\bseguridad\b",
                              r"\bsi\s+(?:sospechas|crees)\b", r"\bautorizad[oa]\b|\bprueba\s+de\s+penetración\b|\bcon\s+permiso\b"),
        "news, history or law": (r"\b(?:policía|sospechos\w+|detenid\w+|detención|tribunal|condenad\w+|juicio|informe|publicad\w+"
                                 r"|reguladores|autoridades|investigadores|según|ley(?:es)?|ilegal|prohibid\w+|convención|tratado|historia"
                                 r"|histórico|guerra)\b", r"\ben\s+(?:1[89]|20)\d\d\b"),
        "fiction or review": (r"\b(?:novela|película|relato|cuento|personaje|villano|héroe|heroína|protagonista|escena|trama|(?<!de\s)serie"
                              r"|episodio|ficción|videojuego)\b",),
    },
    category_framing={
        "self_harm": (r"\b(?:024|línea\s+de\s+(?:crisis|ayuda)|crisis|terapeuta|psicólog\w*|apoyo|pedir\s+ayuda|busca\s+ayuda|buscar\s+ayuda|ayuda\s+profesional|no\s+estás\s+sol[oa]"
                      r"|superar|afrontar|ganas\s+de|en\s+lugar\s+de|plan\s+de\s+seguridad|médic[oa])\b",),
    },
    test_context=(r"\btarjetas?\s+de\s+(?:prueba|test)\b", r"\bmodo\s+de\s+prueba\b", r"\bentorno\s+de\s+pruebas\b", r"\bsandbox\b"),
)
