"""Term tables of the safety gate's intent layer, one module per language.

Each language fills a :class:`Terms`: regex fragments (lower-case, as the
answer is lower-cased before matching) for the harmful *goals* of each
category said as something to do ("take over someone's account"), words of
the harmful procedures, compliance and step markers, and the framing that
exempts a sentence (refusals, defensive advice, news and law, fiction,
support). :mod:`council.safety.intent` joins the tables of every language
into one pattern per slot, so an answer is checked in all of them at once.
To add a language, write its module and list it in ``LANGUAGES``; to add a
category, give it goals and anchors in each table. The judge-aimed flag
(:mod:`council.safety.manipulation`) has its own tables, ``judge_<language>``
modules filling a :class:`JudgeTerms`, listed in ``JUDGE_LANGUAGES``.

Internal: its modules and names may change in any release; the public API is :mod:`council`.
"""

from __future__ import annotations

from council.safety.terms import de, en, es, fr, judge_de, judge_en, judge_es, judge_fr
from council.safety.terms.table import JudgeTerms, Terms

LANGUAGES: tuple[Terms, ...] = (en.TERMS, es.TERMS, fr.TERMS, de.TERMS)
JUDGE_LANGUAGES: tuple[JudgeTerms, ...] = (judge_en.JUDGE, judge_es.JUDGE, judge_fr.JUDGE, judge_de.JUDGE)

__all__ = ["JUDGE_LANGUAGES", "LANGUAGES", "JudgeTerms", "Terms"]
