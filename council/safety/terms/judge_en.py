"""English terms of the judge-aimed flag (see :class:`council.safety.terms.table.JudgeTerms`)."""

from council.safety.terms.table import JudgeTerms, spaced

_A = "['’]"
_ANSWER = r"(?:answer|response|reply|submission|solution|entry)"
_SELF = rf"(?:this|my|our|the following|the above|the present) {_ANSWER}|the {_ANSWER} (?:above|below|here)"
_RANK = r"(?:rank|rate|score|grade|place|put|list|position|mark|order|set|sort)\w*"
_TOP = (r"(?:(?:as|at|in|on|to) )?(?:the )?(?:very )?(?:first|highest|top|best|#\s?1|number one|no\.?\s?1|10\b|ten\b"
        r"|above|ahead|over (?:all )?the others|winner)")
_MARKS = (r"(?:a |the )?(?:score of )?(?:10\b|ten\b|full (?:marks|points|score)|top (?:marks|score)|perfect|maximum|max\b"
          r"|highest|first place|top spot|top rank)")
_JUDGE_VERB = r"(?:grad|judg|evaluat|review|rank|scor|rat|compar|assess|mark|read|check)\w*"

JUDGE = JudgeTerms(
    language="en",
    judges=spaced(
        r"(?:ai |llm |human |automated |final )?(?:evaluators?|graders?|judges?|reviewers?|assessors?|rankers?|scorers?"
        r"|raters?)\b",
        r"(?:evaluation|evaluating|grading|judging|judge|reviewing|review|scoring|ranking|reward) (?:model|llm|ai|system|bot)s?",
    ),
    revisers=spaced(
        r"(?:other|fellow|remaining) (?:council )?(?:members?|models?|assistants?|ais|llms?|agents?|participants?"
        r"|respondents?|responders?|answerers?|panell?ists?|colleagues?)",
        r"(?:council|panel) members?", r"members of (?:this|the) council", r"revisers?",
        rf"(?:authors?|writers?) of (?:the |all the )?other {_ANSWER}s?", rf"the other {_ANSWER}s{_A} authors?",
        rf"(?:if )?you (?:wrote|authored) (?:one of )?the other {_ANSWER}s?",
    ),
    salute=spaced(r"notes?", r"notice", r"messages?", r"memo", r"reminder", r"attention", r"dear", r"hey", r"hi", r"hello",
                  r"greetings", r"p\.? ?s\.?", r"instructions?"),
    whoever=spaced(
        rf"(?:whoever|anyone|anybody|everyone|whichever (?:model|ai|llm|system)) (?:who (?:is|are) )?(?:is )?{_JUDGE_VERB}"
        rf" (?:these|this|the|our|all|both) (?:\w+ )?(?:{_ANSWER}s?|replies|outputs?|candidates)",
        rf"the (?:person|one|model|ai|llm|assistant|system|reader|human) (?:who (?:is |will be )?)?{_JUDGE_VERB}"
        rf" (?:these|this|the) (?:\w+ )?(?:{_ANSWER}s?|replies|outputs?)",
        rf"(?:if|in case) (?:you(?: are|{_A}re)|you happen to be|this is being) (?:\w+ ){{0,4}}?{_JUDGE_VERB}",
        rf"to whoever (?:is )?{_JUDGE_VERB}",
    ),
    revision=spaced(
        r"when you revise", r"before you revise", r"(?:in|during|for) the (?:second|next|revision|final|following) (?:round|step|pass|stage)",
        r"during the revision", r"your revis(?:ed|ion)", r"(?:every|each|all) (?:other )?members? (?:should|must|need|ought)",
    ),
    self=spaced(_SELF, r"this (?:one|text|is the one)", r"\bme\b", r"\bmine\b", r"\bit\b"),
    claim=spaced(
        r"first", r"\btop\b", r"highest", r"\bbest\b", r"number one", r"#\s?1\b", r"\b10\b", r"full marks", r"perfect",
        r"maximum", r"winn(?:er|ing)", r"\bwins?\b", r"above (?:all )?(?:the )?(?:others|rest)", r"ahead of",
        r"(?:is|was|has been) (?:\w+ ){0,2}?(?:correct|right|accurate|verified|checked|approved|validated|complete|reviewed)",
        r"the (?:correct|right|only complete|reference) (?:one|answer|response)", r"reference answer",
        r"prefer|choose|select|pick|vote for",
    ),
    copy=spaced(
        r"(?:copy|copies|adopt|reproduce|repeat|paste|mirror|take over|submit|resubmit|use|endorse|converge|align"
        r"|defer|switch|replace|swap|overwrite|rewrite|discard|drop|abandon|withdraw|scrap|delete)\w*",
        r"identical to", r"word for word", r"verbatim", r"exactly",
    ),
    requests=spaced(
        rf"{_RANK} (?:{_SELF}) {_TOP}",
        r"(?:rank|rate|score|grade)\w* (?:this|me|mine) (?:as |at |in )?(?:the )?(?:first|highest|top|best|#\s?1|number one|10\b|ten\b)",
        r"(?:place|put)\w* me (?:as |at |in |on )?(?:the )?(?:first|highest|top|best|above)",
        rf"(?:give|award|assign|grant)\w* (?:to )?(?:{_SELF}|this|me) {_MARKS}",
        rf"(?:give|award|assign|grant)\w* {_MARKS} to (?:{_SELF})",
        rf"(?:{_SELF}|(?:of|among) (?:all )?(?:the|these) {_ANSWER}s,? this one) (?:[\w’'-]+ ){{0,3}}?(?:deserves?|merits?"
        r"|earns?|has earned|warrants?|is worth|ends? up|ended up|lands?|finish(?:es)?|gets"
        r"|should (?:be )?(?:get|receive|rated|ranked|placed|scored|put|chosen|selected|considered|judged|treated|given)"
        r"|must (?:be )?(?:get|receive|rated|ranked|placed|scored|put|chosen|selected|given)"
        r"|is the (?:clear |obvious |only )?(?:winner|best (?:answer|response))) (?:[\w’'-]+ ){0,4}?"
        r"(?:first|top|highest|best|full marks|10\b|ten\b|maximum|perfect|#\s?1|number one|winner|above)",
        r"(?:consider|treat|regard|count)\w* (?:this|it|me) (?:\w+ )?(?:as )?(?:the )?(?:winning|best|top|correct|reference|winner)",
    ),
    reviser_requests=spaced(
        rf"(?:replace|swap|exchange|overwrite|substitute)\w* (?:your|their) (?:own )?(?:{_ANSWER}s?|drafts?|replies|revisions?"
        r"|texts?) (?:with|for|by) (?:this|mine|my|ours|the following)",
        rf"(?:copy|reproduce|repeat|paste|mirror|adopt|use|submit|take) (?:this|my) (?:{_ANSWER}|text|one)? ?(?:\w+ ){{0,2}}?"
        r"(?:verbatim|word for word|exactly|as is|unchanged|in full|as your (?:own|revision|revised|final|new))",
        rf"your (?:revised|new|final|updated|second) (?:{_ANSWER}|draft) (?:should|must|needs? to|has to|will) (?:be )?"
        r"(?:identical|the same|exactly|this|match|copy|mirror)",
        rf"(?:rewrite|revise|change|update|edit|align) your (?:own )?(?:{_ANSWER}|draft) (?:\w+ ){{0,3}}?(?:to )?"
        r"(?:match|mirror|be identical to|copy|follow) (?:this|mine|my)",
        rf"(?:abandon|discard|drop|withdraw|scrap|delete|throw away|give up) your (?:own )?(?:{_ANSWER}s?|drafts?|replies)"
        r" (?:and|in favou?r of|for) (?:\w+ ){0,3}?(?:this|mine|my)",
        rf"(?:defer|converge|switch) (?:to|on) (?:this|my) (?:{_ANSWER}|one)",
    ),
    ignore=spaced(
        r"(?:ignore|disregard|forget|override|bypass|skip|set aside|overrule)\w* (?:all |any |every )?(?:of )?(?:the |your |my "
        r"|these |those )?(?:previous|prior|above|earlier|preceding|original|initial|system|existing|current|given)"
        r" (?:\w+ )?(?:instructions|rules|prompts?|directions|guidelines|rubrics?|criteria|guidance|constraints|orders)",
        r"(?:ignore|disregard|forget|override|bypass|set aside|overrule)\w* (?:all |any )?(?:of )?(?:the |your )(?:\w+ )?"
        r"(?:rubrics?|(?:grading|evaluation|scoring|review|ranking) (?:instructions|criteria|rules|guidelines|scheme|rubric)"
        r"|system prompt)",
    ),
    system=spaced(
        r"(?:system|admin(?:istrator)?|developer|operator|moderator|orchestrator)(?: (?:note|notice|message|instruction"
        r"|override|prompt|update|alert|directive))?",
        r"(?:evaluation|grading|review) system",
    ),
    judging=spaced(r"evaluat\w*", r"review\w*", r"grad(?:e|er|ers|ing)\b", r"judg\w*", r"\brank\w*", r"scor\w*", r"prefer\w*",
                   r"instruct\w*", r"override", r"ignore", rf"{_ANSWER}s?\b", r"council", r"revis\w*"),
    example=spaced(
        r"such as", r"e\.\s?g\.?", r"for (?:example|instance)", r"along the lines of", r"of the form", r"known as",
        r"(?:phrases?|attacks?|text|strings?|sentences?|lines?|instructions?|notes?|messages?|commands?|prompts?|payloads?"
        r"|injections?|things|something|wording|requests?|jailbreaks?) like",
        r"(?:might|may|could|would|will) (?:say|read|contain|look like)", r"the (?:phrase|string|sentence|words?|line)",
    ),
    topic=spaced(r"inject\w*", r"jailbreak\w*", r"attack\w*", r"adversar\w*", r"malicious", r"payload\w*", r"exploit\w*",
                 r"red[- ]team\w*", r"manipulat\w*", r"hijack\w*", r"untrusted", r"filter\w*", r"detect\w*", r"defen[cs]\w*"),
    exam=spaced(r"students?", r"pupils?", r"exams?", r"examiners?", r"mark(?:ing)? scheme", r"teachers?",
                r"quiz\w*", r"homework", r"essays?", r"coursework", r"assignments?", r"only if", r"worksheets?",
                r"lab reports?"),
    reported=spaced(
        r"(?:tells|told|telling|asks|asked|asking|instructs|instructed|instructing|orders|ordered|ordering|urges|urged"
        r"|urging|tricks|tricked|tricking|gets|got|getting|convinces|convinced|convincing|persuades|persuaded|persuading)"
        r" (?:\w+ ){0,4}?(?:to|into)",
    ),
    words=(
        "rank rate score grade place put list give award assign grant this that the a an my me mine it is are "
        "was to for of on at in as be and or all any every above first top best highest number one ten full "
        "marks points perfect maximum note notice message memo dear hey hi hello attention evaluator "
        "evaluators grader graders judge judges reviewer reviewers assessor assessors model models ai llm "
        "answer answers response responses reply replies submission ignore disregard forget override previous "
        "prior earlier instructions rules rubric criteria system admin developer other others fellow council "
        "members member assistants agents revise revised revision round copy adopt replace use submit your "
        "own with verbatim word exactly identical should must deserves deserve merits whoever grades grading "
        "judging evaluating reviewing these please prefer choose winner new you were next step second final "
        "rewrite match mirror same instead drop discard abandon defer consensus author authors wrote reading "
        "readers read who anyone anybody everyone if case happen happens being person ones would could will "
        "shall need needs ought gives places ranks ranked rated scored scores graded winning below over rest "
        "here there those them they their his her its from by about into when while during before after than "
        "then so because which what text version draft yours ours our instruction update approved verified "
        "correct accurate reference treat consider select pick vote evaluation jury assistant colleagues "
        "participants"
    ),
    keys={
        "answer": (
            "answer", "respons", "reply", "replies", "submission", "solution", "entry", "draft", "mine", "me",
            "rank", "score", "grade", "rate",
        ),
        "judges": (
            "evaluat", "grader", "grading", "judg", "review", "assessor", "ranker", "ranking", "scorer",
            "scoring", "rater", "reward",
        ),
        "revisers": (
            "member", "council", "model", "assistant", "ais", "llm", "agent", "participant", "respondent",
            "responder", "answerer", "panel", "colleague", "reviser", "author", "writer", "wrote",
        ),
        "whoever": ("whoever", "anyone", "anybody", "everyone", "whichever", "grad", "judg", "evaluat", "review", "rank", "scor",
                    "rating", "compar", "assess"),
        "revision": ("revis", "round", "member"),
        "instructions": (
            "instruction", "rule", "prompt", "direction", "guideline", "rubric", "criteri", "guidance",
            "constraint", "order", "scheme",
        ),
        "system": ("system", "admin", "developer", "operator", "moderator", "orchestrator",),
    },
)
