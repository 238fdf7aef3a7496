"""Spanish terms of the judge-aimed flag (see :class:`council.safety.terms.table.JudgeTerms`)."""

from council.safety.terms.table import JudgeTerms, spaced

_ANSWER = r"(?:respuesta|contestaci[óo]n|soluci[óo]n|r[ée]plica|propuesta)"
_SELF = rf"(?:esta|mi|nuestra) {_ANSWER}|la {_ANSWER} (?:de arriba|anterior|de aqu[íi])"
_TOP = (r"(?:como (?:la )?(?:mejor|primera|ganadora)|en (?:el )?(?:primer|n[úu]mero uno|lo m[áa]s alto)|la primera|primero"
        r"|por encima|por delante|con (?:un )?(?:10|diez|la (?:nota|puntuaci[óo]n|calificaci[óo]n) m[áa]s alta|la m[áa]xima))")
_MARKS = (r"(?:la (?:m[áa]xima|mejor|m[áa]s alta)|un (?:10|diez)|la (?:nota|puntuaci[óo]n|calificaci[óo]n) (?:m[áa]xima|m[áa]s alta)"
          r"|el primer|todos los puntos|la puntuaci[óo]n completa)")
_JUDGE_VERB = (r"(?:eval[úu]|evalu|corrij|corrig|juzg|revis|punt[úu]|puntu|califi|compar|clasifi|orden|le[ae]|valor)\w*")

JUDGE = JudgeTerms(
    language="es",
    judges=spaced(
        r"(?:evaluador|revisor|corrector|calificador|examinador)(?:es|a|as)?\b", r"juez\b", r"jueces",
        r"(?:modelo|sistema|ia|llm) (?:evaluador|juez|corrector|que (?:califica|eval[úu]a|corrige|punt[úu]a|juzga|revisa))",
    ),
    revisers=spaced(
        r"(?:dem[áa]s|otros|otras|restantes) (?:miembros|modelos|asistentes|ias|llms|agentes|participantes|integrantes"
        r"|compañeros|colegas)(?: del consejo)?",
        r"compañeros del consejo", r"miembros del consejo", rf"autores de las (?:otras|dem[áa]s) {_ANSWER}e?s",
        rf"(?:si )?escribiste (?:una de )?las otras {_ANSWER}e?s",
    ),
    salute=spaced(r"notas?", r"avisos?", r"mensajes?", r"atenci[óo]n", r"querid[oa]s?", r"estimad[oa]s?", r"hola",
                  r"recordatorio", r"instrucci[óo]n(?:es)?"),
    whoever=spaced(
        rf"(?:quien|quienes|cualquiera que|el que|la que|aquel que|todo el que) (?:\w+ ){{0,2}}?{_JUDGE_VERB}"
        rf" (?:estas|las|todas las|estos|los) (?:\w+ )?(?:{_ANSWER}e?s)",
        rf"la persona que (?:\w+ )?{_JUDGE_VERB}",
        rf"(?:si|por si) (?:eres|es usted|est[áa]s|te toca|le toca) (?:[\w,]+ ){{0,4}}?{_JUDGE_VERB}",
    ),
    revision=spaced(
        r"cuando revis\w+", r"(?:en|durante|para) la (?:segunda|pr[óo]xima|siguiente) (?:ronda|vuelta|fase)",
        r"(?:en|durante) la (?:ronda de )?revisi[óo]n", r"(?:tu|vuestra|su) respuesta revisada",
        r"todos los miembros",
    ),
    self=spaced(_SELF, r"\besta\b", r"\beste texto\b", r"\b(?:ponle|dale|ponme|dame|calif[íi]came|punt[úu]ame|clasif[íi]came)\b"),
    claim=spaced(
        r"primer(?:o|a)?\b", r"n[úu]mero uno", r"m[áa]s alt[oa]", r"m[áa]xim[oa]", r"\bmejor\b", r"ganador(?:a)?",
        r"por encima", r"por delante", r"\b10\b", r"\bdiez\b",
        r"(?:es|ha sido|est[áa]) (?:\w+ ){0,2}?(?:correct[ao]|verificad[ao]|revisad[ao]|comprobad[ao]|aprobad[ao]|completa)",
        r"la (?:correcta|[úu]nica completa|referencia)", r"prefier\w*|eleg\w*|elij\w*|escog\w*", r"\bgan(?:ar|e|a)\b",
    ),
    copy=spaced(
        r"(?:copi|adopt|sustitu|reemplaz|cambi|usa|usad|use|env[íi]|acat|reescrib|desc[áa]rt|abandon|dej|converg|coincid|reproduc"
        r"|repet)\w*",
        r"id[ée]ntica", r"palabra por palabra", r"literalmente", r"tal cual",
    ),
    requests=spaced(
        rf"(?:clasific|punt[úu]|puntu|calific|coloc|pon|sit[úu]|situ|orden|valor)\w* (?:{_SELF}) (?:\w+ ){{0,2}}?{_TOP}",
        r"(?:clasif[íi]ca|punt[úu]a|calif[íi]ca|col[óo]ca|pon|sit[úu]a|valora)me (?:\w+ ){0,2}?(?:primer|con (?:un 10|la (?:nota|"
        r"puntuaci[óo]n) m[áa]s alta|la m[áa]xima)|como (?:la )?mejor|el primero|la primera)",
        rf"(?:d[ae]le|dadle|den|otorg\w*|asign\w*|conced\w*|pon(?:le|edle)?) a (?:{_SELF}) (?:\w+ ){{0,2}}?{_MARKS}",
        rf"(?:{_SELF}) (?:\w+ ){{0,2}}?(?:merece|se merece|debe(?:r[íi]a)? (?:ser|quedar|ir|recibir|obtener|llevarse|estar)|termin\w*|acab\w*|qued\w*"
        r"|se ha ganado|es la (?:mejor|ganadora)) (?:\w+ ){0,4}?(?:primer|m[áa]xim|mejor|m[áa]s alt|10|diez|ganadora|n[úu]mero uno)",
        r"esta es la que (?:\w+ ){0,3}?(?:merece|se ha ganado|debe)",
        r"esta se lleva (?:\w+ )?(?:10|diez|la (?:nota|puntuaci[óo]n) (?:m[áa]xima|m[áa]s alta))",
        rf"(?:considera|trata|toma)\w* (?:{_SELF}|esta) (?:\w+ )?(?:como )?(?:la )?(?:{_ANSWER} )?(?:ganadora|mejor|correcta|referencia)",
        r"tr[áa]tala como (?:la )?(?:referencia|ganadora|mejor)",
    ),
    reviser_requests=spaced(
        rf"(?:sustitu|reemplaz|cambi)\w* (?:tu|vuestra|su|vuestras|tus|sus) (?:propias? )?{_ANSWER}e?s? (?:\w+ )?(?:por|con) "
        r"(?:esta|la m[íi]a|mi)",
        rf"(?:copi|reproduc|repet|adopt|us|env[íi]|tom)\w* (?:esta|este|mi) (?:{_ANSWER}|texto)? ?(?:\w+ ){{0,2}}?(?:literalmente"
        r"|palabra por palabra|tal cual|como (?:propia|vuestra|tuya|suya|tu revisi[óo]n|vuestra revisi[óo]n))",
        rf"(?:tu|vuestra|su) {_ANSWER} (?:revisada|nueva|final) (?:debe|deber[íi]a|tiene que|ha de) (?:ser )?(?:id[ée]ntica"
        r"|igual|esta|la misma)",
        rf"(?:reescrib|revis|cambi|modific|ajust)\w* (?:tu|vuestra|su) {_ANSWER} (?:\w+ ){{0,3}}?(?:coincid|igual|id[ée]ntica"
        r"|como esta)",
        rf"(?:abandon|descart|dej|olvid|tir|retir)\w* (?:tu|vuestra|su|vuestras|tus|sus) (?:propias? )?(?:{_ANSWER}e?s?"
        r"|borrador(?:es)?) (?:\w+ ){0,4}?(?:esta|la m[íi]a)",
        rf"(?:acat|converg|aline)\w* (?:en |con |a )?(?:esta|mi) {_ANSWER}",
    ),
    ignore=spaced(
        r"(?:ignor|olvid|omit|descart|desestim|salt)\w* (?:todas |todos )?(?:las|los|tus|sus|vuestras) (?:\w+ )?"
        r"(?:instrucciones|reglas|indicaciones|pautas|consignas|criterios|directrices) (?:\w+ )?(?:anteriores|previas"
        r"|de arriba|originales|iniciales|del sistema|de (?:evaluaci[óo]n|correcci[óo]n|calificaci[óo]n))",
        r"(?:ignor|olvid|omit|descart|desestim)\w* (?:la|tu|su|vuestra) r[úu]brica",
        r"no hag(?:as|a|[áa]is) caso (?:de|a) (?:\w+ ){0,2}?(?:instrucciones|r[úu]brica|criterios|reglas)",
    ),
    system=spaced(r"sistema", r"admin(?:istrador)?", r"desarrollador", r"operador", r"moderador",
                  r"(?:nota|aviso|mensaje|instrucci[óo]n|alerta) del sistema"),
    judging=spaced(r"eval[úu]\w*", r"evalu\w*", r"revis\w*", r"correct\w*", r"corrig\w*", r"punt[úu]\w*", r"clasific\w*",
                   r"calific\w*", r"prefi\w*", r"juez|jueces", r"(?:ordena|indica|instruye)", rf"{_ANSWER}\w*", r"consejo"),
    example=spaced(
        r"por ejemplo", r"p\. ?ej\.", r"tales como", r"del tipo", r"(?:podr[íi]a|puede) decir",
        r"(?:frases?|ataques?|textos?|cadenas?|instrucciones|mensajes|l[íi]neas?|notas?|algo|comandos?|peticiones) (?:como"
        r"|tipo|de este tipo)",
        r"la frase",
    ),
    topic=spaced(r"inyecci[óo]n\w*", r"inyect\w*", r"jailbreak\w*", r"ataque\w*", r"atacante\w*", r"malicios\w*",
                 r"adversari\w*", r"manipul\w*", r"filtr\w*", r"detect\w*"),
    exam=spaced(r"alumn[oa]s?", r"estudiantes?", r"ex[áa]men(?:es)?", r"examinador\w*", r"tribunal", r"profesor\w*",
                r"criterios de correcci[óo]n", r"solo si", r"ejercicios?", r"deberes", r"redacci[óo]n(?:es)?"),
    reported=spaced(
        r"(?:pide|ped[íi]a|pidi[óo]|ordena|orden[óo]|indica|indic[óo]|dice|dijo|dec[íi]a|exige|exig[íi]a|solicita|solicit[óo]"
        r"|insta|inst[óo]|logra|consigue|convence)(?:ba)? (?:\w+ ){0,4}?(?:que|a)",
    ),
    words=(
        "clasifica clasifique clasificad puntúa puntua califica coloca pon poned dale da otorga esta este mi "
        "respuesta respuestas contestación la el lo los las un una de del en con como mejor primera primero "
        "primer lugar puesto máxima maxima nota puntuación puntuacion más mas alta por encima demás para "
        "aviso mensaje atención querido estimado evaluador evaluadores revisor revisores corrector juez "
        "jueces modelo ignora olvida omite todas instrucciones anteriores previas reglas rúbrica sistema "
        "otros otras miembros consejo copia copiad sustituye sustituid cambia adopta vuestra tu su tus "
        "palabra literalmente quien evalúe evalue debería deberia poner merece debe si eres que siguiente "
        "próxima segunda ronda fase revisión revisada revises revisar reescribe reescribir coincida coincidir "
        "igual idéntica misma mismo vez dejad usad usa copiar adoptad abandona descarta descártala envía "
        "enviad acatad consenso otro otra autores autor escribiste quienes cualquiera persona es está estás "
        "toca deberían deben tendría colocar sitúa situar clasificar puntuar calificar dar asigna ganadora "
        "máximo notas alto delante todos unos unas al a y o sin cuando mientras durante antes después esto "
        "estas estos ese esa esos esas mis sus vuestro nuestro nuestra solución texto versión borrador propia "
        "propio criterios evaluación corrección jurado modelos asistente asistentes miembro compañeros "
        "colegas participantes conjunto valorada valorar considerada considera trata prefiere elige escoge "
        "gana ganar verificada correcta referencia ser sido"
    ),
    keys={
        "answer": (
            "respuest", "contestaci", "soluci", "réplica", "replica", "propuesta", "borrador", "esta",
            "este texto", "la mía", "la mia", "califícame", "calificame", "puntúame", "puntuame",
            "clasifícame", "clasificame", "colócame", "colocame", "ponme", "dame", "ponle", "dale", "valórame",
        ),
        "judges": (
            "evaluador", "revisor", "corrector", "calificador", "examinador", "juez", "jueces", "modelo",
            "sistema", "ia", "llm",
        ),
        "revisers": (
            "miembro", "modelo", "asistente", "ias", "llm", "agente", "participante", "integrante", "compañero",
            "colega", "consejo", "autores", "escribiste",
        ),
        "whoever": ("quien", "cualquiera", "eval", "corrij", "corrig", "juzg", "revis", "puntú", "puntu", "calific", "compar",
                    "clasific", "orden", "valor"),
        "revision": ("revis", "ronda", "vuelta", "miembros"),
        "instructions": (
            "instrucci", "regla", "indicaci", "pauta", "consigna", "criterio", "directri", "rúbrica", "rubrica",
        ),
        "system": ("sistema", "admin", "desarrollador", "operador", "moderador",),
    },
)
