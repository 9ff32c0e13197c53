"""Synthetic patent corpora in CLEF-IP XML, seeded, of any size.

The generator lets the whole pipeline -- ingest, test-collection building, baseline search,
evaluation -- run at any scale without the licensed CLEF-IP corpus. Its files look like
the real ones (MAREC / CLEF-IP ``patent-document`` v1.4): the same elements and attributes,
the same tree layout (``EP/000001/01/01/80/EP-1010180-B1.xml``), claims whose dependencies
are written as text in English, German and French, search-report citations with
categories, relevant-claims lists and relevant passages.

How the corpus is made
----------------------
Patents are generated in publication order over ``start_year`` .. ``end_year``. Each
belongs to a *technology cluster* (one IPC subclass) with its own vocabulary of coined,
pronounceable terms; the text of a patent mixes a general patent vocabulary of the
document's language, the cluster's terms and the patent's own *key terms*. A patent cites
earlier patents, mostly of its own cluster, and inherits key terms from what it cites: many
from an X citation, fewer from a Y, a few from an A. The relevant passages of a citation
are the paragraphs of the cited document that are about the inherited terms. So a lexical
search finds X and Y citations more easily than A citations -- the structure that makes
prior-art search evaluation meaningful. Each search citation also carries the report's
passage indication in words, as EPO reports write them: ``paragraph [0012] - [0015]`` for
exactly the paragraphs marked by XPath, and for a citation without marked paragraphs ``the
whole document``, ``figures 1-3``, ``page 5, line 9 - line 22`` or ``claims 1-3``
(:func:`passage_indication`; ``pateval assess`` reads them).

Every patent has an application publication (A1 with its search report, or A2 followed by
an A3 search report), a granted B1 for most (claims in DE, EN and FR) when the grant falls
before ``end_year`` ends, and some have an earlier WO publication or a divisional EP
patent in the same family (``family-id``).

Generation is deterministic for a seed, whatever the number of worker processes: the plan
of each patent (its citations, key terms, dates) is drawn sequentially by one random
stream, and each patent's text by a random stream seeded from its plan. Memory stays flat:
what earlier patents may be cited is kept in bounded per-cluster pools, and files are
written as they are rendered.
"""

from __future__ import annotations

import bisect
import datetime as _dt
import json
import os
import random
import time
from collections import Counter, deque
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from itertools import accumulate, groupby, islice
from pathlib import Path

from ..errors import ParameterError
from ..formats.atomic import atomic_directory, atomic_output

__all__ = ["GenerationSummary", "generate_corpus", "corpus_path", "dependency_phrase", "DEPENDENCY_FORMS"]

# ---- vocabulary -----------------------------------------------------------------------------

# General patent vocabulary, aligned across EN / DE / FR so that the claims of a granted
# patent are (word-for-word) translations of each other: the same token sequence rendered
# with each language's column. Ordered roughly by frequency (weights are Zipf-like).
_GENERAL = [
    ("the", "die", "le"), ("a", "ein", "un"), ("of", "von", "de"), ("and", "und", "et"),
    ("to", "zu", "à"), ("in", "in", "dans"), ("is", "ist", "est"), ("for", "für", "pour"),
    ("with", "mit", "avec"), ("on", "auf", "sur"), ("by", "durch", "par"), ("at", "bei", "au"),
    ("from", "aus", "du"), ("an", "eine", "une"), ("as", "als", "comme"), ("that", "dass", "que"),
    ("which", "welche", "qui"), ("said", "besagte", "ledit"), ("first", "erste", "premier"),
    ("second", "zweite", "second"), ("means", "Mittel", "moyens"), ("device", "Vorrichtung", "dispositif"),
    ("unit", "Einheit", "unité"), ("element", "Element", "élément"), ("surface", "Oberfläche", "surface"),
    ("portion", "Abschnitt", "partie"), ("layer", "Schicht", "couche"), ("signal", "Signal", "signal"),
    ("arranged", "angeordnet", "agencé"), ("connected", "verbunden", "relié"), ("provided", "vorgesehen", "prévu"),
    ("between", "zwischen", "entre"), ("each", "jede", "chaque"), ("plurality", "Vielzahl", "pluralité"),
    ("member", "Glied", "organe"), ("end", "Ende", "extrémité"), ("position", "Position", "position"),
    ("housing", "Gehäuse", "boîtier"), ("control", "Steuerung", "commande"), ("system", "System", "système"),
    ("method", "Verfahren", "procédé"), ("step", "Schritt", "étape"), ("material", "Material", "matériau"),
    ("wall", "Wand", "paroi"), ("side", "Seite", "côté"), ("axis", "Achse", "axe"),
    ("direction", "Richtung", "direction"), ("value", "Wert", "valeur"), ("region", "Bereich", "région"),
    ("circuit", "Schaltung", "circuit"), ("body", "Körper", "corps"), ("opening", "Öffnung", "ouverture"),
    ("support", "Träger", "support"), ("plate", "Platte", "plaque"), ("frame", "Rahmen", "cadre"),
    ("invention", "Erfindung", "invention"), ("embodiment", "Ausführungsform", "mode"),
    ("preferably", "vorzugsweise", "de préférence"), ("further", "ferner", "en outre"),
    ("respective", "jeweilige", "respectif"), ("upper", "obere", "supérieur"), ("lower", "untere", "inférieur"),
    ("outer", "äußere", "extérieur"), ("inner", "innere", "intérieur"),
    ("predetermined", "vorbestimmte", "prédéterminé"),
    ("configured", "ausgebildet", "configuré"), ("adapted", "angepasst", "adapté"), ("formed", "gebildet", "formé"),
    ("mounted", "montiert", "monté"), ("coupled", "gekoppelt", "couplé"), ("disposed", "angeordnet", "disposé"),
    ("substantially", "im Wesentlichen", "sensiblement"), ("least", "mindestens", "moins"),
    ("one", "eine", "un"), ("two", "zwei", "deux"), ("output", "Ausgang", "sortie"), ("input", "Eingang", "entrée"),
    ("data", "Daten", "données"), ("source", "Quelle", "source"), ("temperature", "Temperatur", "température"),
    ("pressure", "Druck", "pression"), ("flow", "Strömung", "écoulement"), ("chamber", "Kammer", "chambre"),
    ("shaft", "Welle", "arbre"), ("sensor", "Sensor", "capteur"), ("valve", "Ventil", "soupape"),
    ("film", "Film", "film"), ("composition", "Zusammensetzung", "composition"), ("weight", "Gewicht", "poids"),
    ("solution", "Lösung", "solution"), ("process", "Prozess", "processus"), ("range", "Bereich", "plage"),
    ("known", "bekannt", "connu"), ("object", "Aufgabe", "objet"), ("problem", "Problem", "problème"),
    ("advantage", "Vorteil", "avantage"), ("figure", "Figur", "figure"), ("shown", "gezeigt", "représenté"),
    ("example", "Beispiel", "exemple"), ("used", "verwendet", "utilisé"), ("having", "aufweisend", "ayant"),
    ("comprises", "umfasst", "comprend"), ("can", "kann", "peut"), ("be", "sein", "être"),
    ("this", "diese", "ce"), ("such", "solche", "tel"), ("also", "auch", "aussi"), ("not", "nicht", "pas"),
]
_LANGS = ("EN", "DE", "FR")
_GENERAL_BY_LANG = {lang: [row[i] for row in _GENERAL] for i, lang in enumerate(_LANGS)}

# How claims begin, per language: the subject noun of claim 1 and of a second independent
# (method) claim, and the joining words.
_CLAIM_WORDS = {
    "EN": {"apparatus": "An apparatus", "method": "A method of operating", "dependent": "The apparatus",
           "dependent_method": "The method", "comprising": "comprising", "wherein": "wherein"},
    "DE": {"apparatus": "Vorrichtung", "method": "Verfahren zum Betreiben", "dependent": "Vorrichtung",
           "dependent_method": "Verfahren", "comprising": "umfassend", "wherein": "wobei"},
    "FR": {"apparatus": "Dispositif", "method": "Procédé de fonctionnement", "dependent": "Dispositif",
           "dependent_method": "Procédé", "comprising": "comprenant", "wherein": "dans lequel"},
}

#: The ways a dependent claim names the claims it refers to (each written in EN, DE, FR).
DEPENDENCY_FORMS = ("single", "either", "range", "preceding")

_DEPENDENCY_TEMPLATES: dict[str, dict[str, tuple[str, ...]]] = {
    "EN": {
        "single": ("as claimed in claim {a}", "according to claim {a}"),
        "either": ("as claimed in claim {a} or {b}",),
        "range": ("as claimed in any one of claims {a} to {b}",),
        "preceding": ("according to any one of the preceding claims",),
    },
    "DE": {
        "single": ("nach Anspruch {a}", "gemäß Anspruch {a}"),
        "either": ("nach Anspruch {a} oder {b}",),
        "range": ("nach einem der Ansprüche {a} bis {b}",),
        "preceding": ("nach einem der vorhergehenden Ansprüche",),
    },
    "FR": {
        "single": ("selon la revendication {a}",),
        "either": ("selon la revendication {a} ou {b}",),
        "range": ("selon l'une quelconque des revendications {a} à {b}",),
        "preceding": ("selon l'une quelconque des revendications précédentes",),
    },
}

_TITLE_NOUNS = {
    "EN": ("device", "apparatus", "method", "system", "assembly", "arrangement"),
    "DE": ("Vorrichtung", "Vorrichtung", "Verfahren", "System", "Baugruppe", "Anordnung"),
    "FR": ("Dispositif", "Appareil", "Procédé", "Système", "Ensemble", "Agencement"),
}
_TITLE_LINK = {"EN": "for", "DE": "für", "FR": "pour"}

_HEADINGS = {
    "EN": ("FIELD OF THE INVENTION", "BACKGROUND OF THE INVENTION", "SUMMARY OF THE INVENTION",
           "DETAILED DESCRIPTION OF THE EMBODIMENTS"),
    "DE": ("Gebiet der Erfindung", "Stand der Technik", "Zusammenfassung der Erfindung",
           "Ausführliche Beschreibung der Ausführungsformen"),
    "FR": ("Domaine de l'invention", "État de la technique", "Résumé de l'invention",
           "Description détaillée des modes de réalisation"),
}

_ONSETS = ("b", "c", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z",
           "br", "tr", "pl", "st", "gr", "dr", "fl", "kr", "sp", "th")
_VOWELS = ("a", "e", "i", "o", "u", "a", "e", "o", "ai", "ei", "ou", "ia")
_CODAS = ("", "", "", "n", "r", "s", "l", "x", "m", "t")

_COMPANY_FORMS = (("GMBH", "DE"), ("AG", "DE"), ("S.A.", "FR"), ("SA", "FR"), ("LTD", "GB"),
                  ("INC", "US"), ("CORP", "US"), ("BV", "NL"), ("KK", "JP"), ("SPA", "IT"))
_EXTERNAL_COUNTRIES = (("US", "A"), ("DE", "A1"), ("JP", "A"), ("GB", "A"), ("FR", "A1"), ("US", "B1"))
_PRIORITY_COUNTRIES = ("US", "DE", "FR", "GB", "JP", "IT", "NL", "SE", "CH")

_SECTIONS = "ABCDEFGH"
_SUBCLASS_LETTERS = "BCDFGHJKLMNPQ"

# Citation categories of search-report citations into the corpus, roughly the shares of
# EPO search reports (A, background, is the most frequent).
_CATEGORY_WEIGHTS = (("X", 0.28), ("Y", 0.17), ("A", 0.55))
# How many search-report citations a patent gets: mostly few (Roda et al., Fig. 1).
_CITATION_COUNT_WEIGHTS = (0.05, 0.17, 0.17, 0.15, 0.12, 0.09, 0.07, 0.05, 0.04, 0.03, 0.025, 0.015, 0.01)
# Share of each cited patent's key terms that the citing patent takes over, by category.
_INHERIT = {"X": (0.45, 0.65), "Y": (0.25, 0.4), "A": (0.08, 0.2)}

_KEY_TERMS = 12
_POOL_RECENT = 160
_POOL_RESERVOIR = 160
_DOC_DATE_PRODUCED = "20090516"


def _coin(rng: random.Random, syllables: int) -> str:
    """A pronounceable made-up word (the technical terms of the synthetic clusters)."""
    return "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_CODAS) for _ in range(syllables))


def _zipf_cum(n: int, exponent: float = 1.0) -> list[float]:
    return list(accumulate(1.0 / (rank + 1) ** exponent for rank in range(n)))


# ---- dependency phrases -----------------------------------------------------------------------


def dependency_phrase(lang: str, form: str, refs: Sequence[int], *, variant: int = 0) -> str:
    """The words by which a dependent claim names the claims it refers to.

    Parameters
    ----------
    lang : {"EN", "DE", "FR"}
    form : {"single", "either", "range", "preceding"}
        One claim (``refs = [a]``), one of two (``[a, b]``), a range (``[a, ..., b]``) or
        all earlier claims (``refs = [1, ..., n-1]``).
    refs : sequence of int
        The claims referred to, ascending.
    variant : int
        Which wording of the form (there are two for "single" in EN and DE).

    Returns
    -------
    str
        For example ``"as claimed in claim 1 or 2"``, ``"nach einem der Ansprüche 1 bis 3"``,
        ``"selon l'une quelconque des revendications précédentes"``.
    """
    try:
        templates = _DEPENDENCY_TEMPLATES[lang][form]
    except KeyError:
        raise ParameterError(f"no dependency wording for language {lang!r} and form {form!r}") from None
    if not refs:
        raise ParameterError("a dependent claim refers to at least one claim")
    return templates[variant % len(templates)].format(a=refs[0], b=refs[-1])


def _plan_claim_dependencies(rng: random.Random, n_claims: int) -> list[tuple[str, tuple[int, ...], bool]]:
    """Per claim: (form or "", referenced claims, is-method-group). Claim 1 is independent;
    about half the claim sets start a second, method group of claims after two thirds."""
    method_start = n_claims + 1
    if n_claims >= 6 and rng.random() < 0.5:
        method_start = max(3, (2 * n_claims) // 3 + 1)
    plan: list[tuple[str, tuple[int, ...], bool]] = []
    for number in range(1, n_claims + 1):
        in_method = number >= method_start
        group_start = method_start if in_method else 1
        if number == group_start:
            plan.append(("", (), in_method))
            continue
        earlier = number - group_start  # claims of this group before this one
        draw = rng.random()
        if draw < 0.1 and not in_method and number >= 3:
            plan.append(("preceding", tuple(range(1, number)), in_method))
        elif draw < 0.2 and earlier >= 2:
            low = group_start + rng.randrange(0, earlier - 1)
            plan.append(("either", (low, low + 1), in_method))
        elif draw < 0.28 and earlier >= 3:
            low = group_start + rng.randrange(0, earlier - 2)
            high = rng.randrange(low + 2, number)
            plan.append(("range", tuple(range(low, high + 1)), in_method))
        else:
            # Mostly the group's independent claim, else a recent claim of the group.
            target = group_start if rng.random() < 0.55 else rng.randrange(group_start, number)
            plan.append(("single", (target,), in_method))
    return plan


# ---- plans ------------------------------------------------------------------------------------


@dataclass(slots=True)
class _CitationPlan:
    ucid: str
    source: str  # SEA or APP
    category: str  # "" for applicant citations
    rel_claims: str
    passages: tuple[str, ...]


@dataclass(slots=True)
class _PatentPlan:
    index: int
    render_seed: int
    cluster: int
    family_id: str
    lang: str
    ep_number: str
    a_kind: str
    a_date: int  # date ordinal
    a3_date: int | None
    b_date: int | None
    wo_number: str | None
    wo_date: int | None
    app_number: str
    app_date: int
    priority: tuple[str, str, int] | None
    ipc: tuple[str, ...]
    key_terms: tuple[str, ...]
    n_paragraphs: int
    n_claims: int
    applicant: tuple[str, str]
    inventors: tuple[str, ...]
    citations: list[_CitationPlan] = field(default_factory=list)


@dataclass(slots=True)
class _PoolEntry:
    """What a later patent needs to know to cite an earlier one."""

    ep_number: str
    a_kind: str
    a_date: int
    b_date: int | None
    wo_number: str | None
    wo_date: int | None
    key_terms: tuple[str, ...]
    n_paragraphs: int
    family_id: str


class _ClusterPool:
    """Citable earlier patents of one cluster: the most recent ones and a uniform
    reservoir of all older ones, both bounded (memory stays flat in corpus size)."""

    __slots__ = ("recent", "reservoir", "seen")

    def __init__(self) -> None:
        self.recent: deque[_PoolEntry] = deque(maxlen=_POOL_RECENT)
        self.reservoir: list[_PoolEntry] = []
        self.seen = 0

    def add(self, entry: _PoolEntry, rng: random.Random) -> None:
        if len(self.recent) == self.recent.maxlen:
            evicted = self.recent[0]
            self.seen += 1
            if len(self.reservoir) < _POOL_RESERVOIR:
                self.reservoir.append(evicted)
            else:
                slot = rng.randrange(self.seen)
                if slot < _POOL_RESERVOIR:
                    self.reservoir[slot] = evicted
        self.recent.append(entry)

    def draw(self, rng: random.Random, before: int) -> _PoolEntry | None:
        """A patent published before the date ordinal ``before``, recent ones preferred."""
        for _ in range(4):
            source = self.reservoir if (self.reservoir and rng.random() < 0.35) else self.recent
            if not source:
                return None
            entry = source[rng.randrange(len(source))]
            if entry.a_date < before:
                return entry
        return None


@dataclass(frozen=True)
class _Cluster:
    ipc_subclass: str
    groups: tuple[str, ...]
    terms: tuple[str, ...]
    applicants: tuple[tuple[str, str], ...]


def _build_clusters(seed: int, n_clusters: int) -> list[_Cluster]:
    rng = random.Random(f"pateval-clusters-{seed}")
    # Distinct IPC classes first (121 classes, as in the CLEF-IP 2013 topic pool), then
    # further subclasses of the same classes when there are more clusters than that.
    distinct: dict[str, None] = {}  # an ordered set
    while len(distinct) < min(n_clusters, 121):
        distinct[rng.choice(_SECTIONS) + f"{rng.randrange(1, 99):02d}"] = None
    classes = list(distinct)
    section_terms = {s: tuple(_coin(rng, rng.choice((2, 3))) for _ in range(60)) for s in _SECTIONS}
    clusters: list[_Cluster] = []
    used_subclasses: set[str] = set()
    for index in range(n_clusters):
        ipc_class = classes[index % len(classes)]
        letters = [c for c in _SUBCLASS_LETTERS if ipc_class + c not in used_subclasses]
        subclass = ipc_class + (rng.choice(letters) if letters else rng.choice(_SUBCLASS_LETTERS))
        used_subclasses.add(subclass)
        groups = tuple(f"{rng.randrange(1, 60)}/{rng.choice((0, 2, 4, 6, 8, 10, 12, 14, 16, 20, 24, 30))}"
                       for _ in range(5))
        own = [_coin(rng, rng.choice((2, 3, 3, 4))) for _ in range(220)]
        shared = rng.sample(section_terms[ipc_class[0]], 30)
        terms = tuple(dict.fromkeys(own + shared))
        applicants = tuple((f"{_coin(rng, 3).upper()} {form}", country)
                           for form, country in (rng.choice(_COMPANY_FORMS) for _ in range(6)))
        clusters.append(_Cluster(subclass, groups, terms, applicants))
    return clusters


@dataclass
class GenerationSummary:
    """What :func:`generate_corpus` wrote.

    Attributes
    ----------
    out_dir : str
    seed : int
    n_patents, n_families, n_documents : int
        Patents (EP applications), families and publication files.
    documents_by_kind : dict
        Kind code (A1, A2, A3, B1, and WO's A1 as ``WO-A1``) -> number of files.
    n_citations : int
        Patent citations written (search report and applicant), over all files.
    bytes_written : int
    seconds : float
    start_year, end_year, n_clusters : int
    """

    out_dir: str
    seed: int
    n_patents: int
    n_families: int
    n_documents: int
    documents_by_kind: dict[str, int]
    n_citations: int
    bytes_written: int
    seconds: float
    start_year: int
    end_year: int
    n_clusters: int

    @property
    def documents_per_second(self) -> float:
        return self.n_documents / self.seconds if self.seconds > 0 else float("inf")

    @property
    def megabytes_per_second(self) -> float:
        return self.bytes_written / 1e6 / self.seconds if self.seconds > 0 else float("inf")

    def as_dict(self) -> dict:
        return {**asdict(self), "documents_per_second": round(self.documents_per_second, 1),
                "megabytes_per_second": round(self.megabytes_per_second, 2)}


class _Planner:
    """Draws the plans of all patents in publication order (one random stream)."""

    def __init__(self, *, n_patents: int, seed: int, start_year: int, end_year: int, n_clusters: int,
                 rates: dict[str, float], language_shares: Sequence[tuple[str, float]]) -> None:
        self.n_patents = n_patents
        self.rng = random.Random(f"pateval-plan-{seed}")
        self.clusters = _build_clusters(seed, n_clusters)
        self.pools = [_ClusterPool() for _ in range(n_clusters)]
        self.start = _dt.date(start_year, 1, 1).toordinal()
        self.end = _dt.date(end_year, 12, 31).toordinal()
        self.rates = rates  # generate_corpus's *_rate parameters, by name
        self.langs = [lang for lang, _ in language_shares]
        self.lang_cum = list(accumulate(share for _, share in language_shares))
        # Cluster sizes are skewed (some technologies are much more active than others).
        self.cluster_cum = list(accumulate(1.0 / (1 + i) ** 0.5 for i in range(n_clusters)))
        self.cluster_order = list(range(n_clusters))
        self.rng.shuffle(self.cluster_order)
        self.term_cum = {len(c.terms): _zipf_cum(len(c.terms), 0.8) for c in self.clusters}
        self.stride = max(1, 1_600_000 // max(1, n_patents))
        self.next_family = 10_000_000 + self.rng.randrange(1_000_000)
        self.n_families = 0

    def _pick(self, cum: list[float]) -> int:
        return bisect.bisect(cum, self.rng.random() * cum[-1])

    def plans(self) -> Iterator[_PatentPlan]:
        rng = self.rng
        span = self.end - self.start
        for index in range(self.n_patents):
            a_date = min(self.start + (index * span) // self.n_patents + rng.randrange(0, 7), self.end)
            yield self._plan(index, a_date)

    def _plan(self, index: int, a_date: int) -> _PatentPlan:
        rng = self.rng
        cluster_id = self.cluster_order[self._pick(self.cluster_cum)]
        cluster = self.clusters[cluster_id]
        pool = self.pools[cluster_id]
        lang = self.langs[self._pick(self.lang_cum)]
        ep_number = f"{100_000 + index * self.stride + rng.randrange(self.stride):07d}"

        # A divisional shares the family and most key terms of an earlier patent.
        parent = pool.draw(rng, a_date) if rng.random() < self.rates["divisional_rate"] else None
        if parent is not None:
            family_id = parent.family_id
        else:
            self.next_family += 1 + rng.randrange(40)
            self.n_families += 1
            family_id = str(self.next_family)

        wo_number = wo_date = None
        if parent is None and rng.random() < self.rates["wo_rate"]:
            wo_date = max(self.start, a_date - rng.randrange(90, 400))
            wo_number = f"{_dt.date.fromordinal(wo_date).year}{(index % 999_999) + 1:06d}"
        a_kind = "A2" if rng.random() < self.rates["a2_rate"] else "A1"
        a3_date = a_date + rng.randrange(120, 500) if a_kind == "A2" else None
        if a3_date is not None and a3_date > self.end:
            a3_date = None  # the search report is not published within the corpus period
        b_date = a_date + rng.randrange(700, 2000) if rng.random() < self.rates["grant_rate"] else None
        if b_date is not None and b_date > self.end:
            b_date = None  # granted after the corpus period
        app_date = a_date - rng.randrange(300, 560)
        app_number = f"{_dt.date.fromordinal(app_date).year % 100:02d}{100_000 + (index * 7919) % 900_000:06d}"
        priority = None
        if rng.random() < 0.6:
            priority = (rng.choice(_PRIORITY_COUNTRIES), f"{rng.randrange(100_000, 9_999_999)}",
                        app_date - rng.randrange(30, 365))

        # Citations: search report (with categories), plus a few applicant citations.
        citations: list[_CitationPlan] = []
        inherited: list[str] = []
        n_claims = rng.randrange(3, 19)
        n_paragraphs = rng.randrange(6, 26)
        searchable = a_kind == "A1" or a3_date is not None
        n_search = self._pick(self._count_cum) if searchable else 0
        cited_keys: set[str] = set()
        for _ in range(n_search):
            category = _CATEGORY_WEIGHTS[self._pick(self._category_cum)][0]
            if rng.random() < self.rates["external_citation_rate"]:
                citations.append(self._external(category, n_claims))
                continue
            source_pool = pool
            if rng.random() < 0.1:
                neighbour = (cluster_id + rng.choice((-1, 1))) % len(self.pools)
                source_pool = self.pools[neighbour]
            target = source_pool.draw(rng, a_date)
            if target is None or target.ep_number in cited_keys:
                continue
            cited_keys.add(target.ep_number)
            citation, taken = self._cite(target, category, a_date, n_claims)
            citations.append(citation)
            inherited.extend(taken)
        if searchable and rng.random() < self.rates["applicant_citation_rate"]:
            for _ in range(rng.randrange(1, 4)):
                target = pool.draw(rng, a_date)
                if target is None or target.ep_number in cited_keys:
                    continue
                cited_keys.add(target.ep_number)
                citations.append(_CitationPlan(self._cited_ucid(target, a_date), "APP", "", "", ()))

        # Key terms: what the patent takes from its parent and from what it cites, then
        # fresh terms of the cluster and two coined terms of its own.
        keys = list(parent.key_terms[: _KEY_TERMS - 3]) if parent is not None else []
        keys.extend(inherited[:max(0, _KEY_TERMS - 4 - len(keys))])
        cum = self.term_cum[len(cluster.terms)]
        keys.extend(cluster.terms[self._pick(cum)] for _ in range(_KEY_TERMS - 2 - len(keys)))
        keys = list(dict.fromkeys(keys))
        keys.extend(_coin(rng, rng.choice((3, 4))) for _ in range(_KEY_TERMS - len(keys)))
        rng.shuffle(keys)

        ipc = [f"{cluster.ipc_subclass} {rng.choice(cluster.groups)}"]
        for _ in range(rng.randrange(0, 3)):
            other = self.clusters[(cluster_id + rng.choice((-1, 1, 2))) % len(self.clusters)]
            ipc.append(f"{other.ipc_subclass} {rng.choice(other.groups)}" if rng.random() < 0.4
                       else f"{cluster.ipc_subclass} {rng.choice(cluster.groups)}")
        inventors = tuple(f"{_coin(rng, 2).upper()} {_coin(rng, 2).upper()}" for _ in range(rng.randrange(1, 4)))

        plan = _PatentPlan(
            index=index, render_seed=rng.getrandbits(63), cluster=cluster_id, family_id=family_id,
            lang=lang, ep_number=ep_number, a_kind=a_kind, a_date=a_date, a3_date=a3_date, b_date=b_date,
            wo_number=wo_number, wo_date=wo_date, app_number=app_number, app_date=app_date,
            priority=priority, ipc=tuple(dict.fromkeys(ipc)), key_terms=tuple(keys),
            n_paragraphs=n_paragraphs, n_claims=n_claims, applicant=rng.choice(cluster.applicants),
            inventors=inventors, citations=citations,
        )
        pool.add(_PoolEntry(ep_number, a_kind, a_date, b_date, wo_number, wo_date, plan.key_terms,
                            n_paragraphs, family_id), rng)
        return plan

    _count_cum = list(accumulate(_CITATION_COUNT_WEIGHTS))
    _category_cum = list(accumulate(w for _, w in _CATEGORY_WEIGHTS))

    def _rel_claims(self, category: str, n_claims: int) -> str:
        rng = self.rng
        if category == "X":
            last = rng.randrange(1, n_claims + 1)
            return "1" if last == 1 else f"1-{last}"
        if category == "Y":
            first = rng.randrange(1, n_claims + 1)
            last = min(n_claims, first + rng.randrange(0, 4))
            return str(first) if first == last else f"{first}-{last}"
        return "1" if rng.random() < 0.6 else f"1-{n_claims}"

    def _cited_ucid(self, target: _PoolEntry, before: int) -> str:
        """Which publication of the cited patent the report names (one published before)."""
        rng = self.rng
        draw = rng.random()
        if target.b_date is not None and target.b_date < before and draw < 0.35:
            return f"EP-{target.ep_number}-B1"
        if target.wo_number is not None and draw > 0.85:
            return f"WO-{target.wo_number}-A1"
        return f"EP-{target.ep_number}-{target.a_kind}"

    def _cite(self, target: _PoolEntry, category: str, before: int, n_claims: int) -> tuple[_CitationPlan, list[str]]:
        rng = self.rng
        low, high = _INHERIT[category]
        share = low + (high - low) * rng.random()
        n_taken = max(1, round(share * len(target.key_terms)))
        positions = sorted(rng.sample(range(len(target.key_terms)), n_taken))
        taken = [target.key_terms[p] for p in positions]
        passages: tuple[str, ...] = ()
        if category != "A" or rng.random() < 0.5:
            # The paragraphs of the cited document that are about the inherited terms:
            # paragraph j (1-based) is about key term (j - 1) mod K (see _Renderer.render).
            m = len(target.key_terms)
            if about := [j for j in range(1, target.n_paragraphs + 1) if (j - 1) % m in positions]:
                start = rng.randrange(len(about))
                chosen = about[start:start + rng.randrange(1, 5)]
                passages = tuple(f"/patent-document/description/p[{j}]" for j in chosen)
        ucid = self._cited_ucid(target, before)
        return _CitationPlan(ucid, "SEA", category, self._rel_claims(category, n_claims), passages), taken

    def _external(self, category: str, n_claims: int) -> _CitationPlan:
        """A citation of a document outside the corpus (non-EP prior art)."""
        country, kind = self.rng.choice(_EXTERNAL_COUNTRIES)
        number = str(self.rng.randrange(1_000_000, 6_999_999))
        return _CitationPlan(f"{country}-{number}-{kind}", "SEA", category, self._rel_claims(category, n_claims), ())


# ---- rendering --------------------------------------------------------------------------------


def corpus_path(root: str | os.PathLike[str], ucid: str) -> Path:
    """Where the CLEF-IP tree keeps a publication: the number padded to 12 digits and
    split 6/2/2/2 (``EP-1010180-B1`` -> ``EP/000001/01/01/80/EP-1010180-B1.xml``)."""
    country, number, _kind = ucid.split("-")
    padded = number.rjust(12, "0")
    return Path(root, country, padded[:6], padded[6:8], padded[8:10], padded[10:12], f"{ucid}.xml")


def _ymd(ordinal: int) -> str:
    return _dt.date.fromordinal(ordinal).strftime("%Y%m%d")


class _Renderer:
    """Writes the files of one patent (all its publications)."""

    def __init__(self, seed: int, n_clusters: int, root: str) -> None:
        self.clusters = _build_clusters(seed, n_clusters)
        self.root = root
        self.made_dirs: set[str] = set()
        self.general_cum = _zipf_cum(len(_GENERAL), 1.0)

    def render(self, plan: _PatentPlan) -> tuple[dict[str, int], int, int]:
        """Write all publications of ``plan``; returns (files by kind, citations, bytes)."""
        rng = random.Random(plan.render_seed)
        cluster = self.clusters[plan.cluster]
        lang = plan.lang
        # Token space: general words, then cluster terms, then the patent's key terms. A
        # token sequence is rendered per language by indexing that language's lexicon.
        n_terms = len(cluster.terms)
        weights_general = self.general_cum[-1]
        cum = self.general_cum + [weights_general + w * 0.12 for w in _zipf_cum(n_terms, 0.8)]
        base = cum[-1]
        cum += [base + (k + 1) * 0.2 for k in range(len(plan.key_terms))]
        lexicons = {code: _GENERAL_BY_LANG[code] + list(cluster.terms) + list(plan.key_terms) for code in _LANGS}
        key_offset = len(_GENERAL) + n_terms

        def tokens(n: int) -> list[int]:
            total = cum[-1]
            return [bisect.bisect(cum, rng.random() * total) for _ in range(n)]

        def sentences(token_ids: list[int], lexicon: list[str]) -> str:
            out = []
            position = 0
            while position < len(token_ids):
                length = rng.randrange(9, 22)
                sentence = " ".join(lexicon[t] for t in token_ids[position:position + length])
                position += length
                out.append(sentence[:1].upper() + sentence[1:] + ".")
            return " ".join(out)

        keys = plan.key_terms
        m = len(keys)
        # Description: paragraph j is about key term (j - 1) mod m (the citing patents'
        # relevant passages rely on this).
        lexicon = lexicons[lang]
        heading_at = {1: 0, 2: 1, max(3, plan.n_paragraphs // 3): 2, max(4, plan.n_paragraphs // 2): 3}
        description_parts = []
        for j in range(1, plan.n_paragraphs + 1):
            ids = tokens(rng.randrange(30, 80))
            focus = key_offset + (j - 1) % m
            for _ in range(rng.randrange(4, 8)):
                ids.insert(rng.randrange(len(ids) + 1), focus)
            if j in heading_at:
                description_parts.append(f"<heading>{_HEADINGS[lang][heading_at[j]]}</heading>")
            description_parts.append(f'<p num="{j:04d}">{sentences(ids, lexicon)}</p>')
        description = f'<description lang="{lang}" status="new">{"".join(description_parts)}</description>'

        abstract_ids = tokens(rng.randrange(40, 90))
        for k in range(min(4, m)):
            abstract_ids.insert(rng.randrange(len(abstract_ids) + 1), key_offset + k)
        abstract = f'<abstract lang="{lang}" status="new"><p>{sentences(abstract_ids, lexicon)}</p></abstract>'

        # Claims: one token plan, rendered in each language with the same dependencies.
        dependency_plan = _plan_claim_dependencies(rng, plan.n_claims)
        claim_bodies = []
        for number, (form, _refs, _method) in enumerate(dependency_plan, start=1):
            ids = tokens(rng.randrange(14, 45) if form == "" else rng.randrange(8, 25))
            ids.insert(0, key_offset + (number - 1) % m)
            if form == "":
                ids.insert(len(ids) // 2, key_offset + number % m)
            claim_bodies.append((ids, rng.randrange(2)))
        claims_by_lang = {code: self._claims(code, dependency_plan, claim_bodies, lexicons[code]) for code in _LANGS}

        title_noun = rng.randrange(len(_TITLE_NOUNS["EN"]))
        titles = "".join(
            f'<invention-title lang="{code}" status="new">{_TITLE_NOUNS[code][title_noun].capitalize()} '
            f"{_TITLE_LINK[code]} {keys[0]} {keys[1]}</invention-title>"
            for code in ("DE", "EN", "FR")
        )

        ipcr = "".join(
            f'<classification-ipcr status="new">{_ipcr_text(symbol, plan.a_date)}</classification-ipcr>'
            for symbol in plan.ipc
        )
        parties = self._parties(plan)
        counts: dict[str, int] = {}
        n_citations = written = 0

        def write(country: str, number: str, kind: str, date: int, body: str, citations: str = "") -> None:
            nonlocal written
            ucid = f"{country}-{number}-{kind}"
            head = (
                '<?xml version="1.0" encoding="UTF-8"?>\n'
                '<!DOCTYPE patent-document PUBLIC "-//MXW//DTD patent-document XML//EN" '
                '"http://www.ir-facility.org/dtds/patents/v1.4/patent-document.dtd">\n'
                f'<patent-document ucid="{ucid}" country="{country}" doc-number="{number}" kind="{kind}" '
                f'lang="{lang}" date="{_ymd(date)}" family-id="{plan.family_id}" status="new" '
                f'date-produced="{_DOC_DATE_PRODUCED}">'
                f'<bibliographic-data><publication-reference ucid="{ucid}" status="new" '
                    f'fvid="{plan.index + 20_000_000}">'
                f'<document-id status="new" format="original"><country>{country}</country>'
                f"<doc-number>{number}</doc-number><kind>{kind}</kind><date>{_ymd(date)}</date>"
                f"</document-id></publication-reference>"
                f"{self._application(plan)}"
                f'<technical-data status="new"><classifications-ipcr>{ipcr}</classifications-ipcr>'
                f"{titles}{citations}</technical-data>{parties}</bibliographic-data>"
            )
            data = (head + body + "</patent-document>\n").encode("utf-8")
            path = corpus_path(self.root, ucid)
            directory = str(path.parent)
            if directory not in self.made_dirs:
                os.makedirs(directory, exist_ok=True)
                self.made_dirs.add(directory)
            path.write_bytes(data)
            written += len(data)
            label = kind if country == "EP" else f"{country}-{kind}"
            counts[label] = counts.get(label, 0) + 1

        citations_xml = _citations_xml(plan.citations, seed=plan.render_seed) if plan.citations else ""
        application = abstract + description + claims_by_lang[lang]
        if plan.wo_number is not None and plan.wo_date is not None:
            write("WO", plan.wo_number, "A1", plan.wo_date, application)
        if plan.a_kind == "A1":
            write("EP", plan.ep_number, "A1", plan.a_date, application, citations_xml)
            n_citations += len(plan.citations)
        else:
            write("EP", plan.ep_number, "A2", plan.a_date, application)
            # The later search report (A3); a report that cites nothing is not written.
            if plan.a3_date is not None and plan.citations:
                write("EP", plan.ep_number, "A3", plan.a3_date, "", citations_xml)
                n_citations += len(plan.citations)
        if plan.b_date is not None:
            # Granted patents: no abstract, claims in the three EPO languages.
            write("EP", plan.ep_number, "B1", plan.b_date,
                  description + claims_by_lang["DE"] + claims_by_lang["EN"] + claims_by_lang["FR"])
        return counts, n_citations, written

    @staticmethod
    def _claims(lang: str, dependency_plan, claim_bodies, lexicon: list[str]) -> str:
        words = _CLAIM_WORDS[lang]
        parts = [f'<claims lang="{lang}" status="new">']
        for number, ((form, refs, method), (ids, variant)) in enumerate(zip(dependency_plan, claim_bodies,
                                                                            strict=False), start=1):
            body = " ".join(lexicon[t] for t in ids)
            if form == "":
                subject = words["method"] if method else words["apparatus"]
                text = f"{subject} {words['comprising']} {body}."
            else:
                subject = words["dependent_method"] if method else words["dependent"]
                text = f"{subject} {dependency_phrase(lang, form, refs, variant=variant)}, {words['wherein']} {body}."
            parts.append(f'<claim num="{number}"><claim-text>{text}</claim-text></claim>')
        parts.append("</claims>")
        return "".join(parts)

    @staticmethod
    def _application(plan: _PatentPlan) -> str:
        text = (
            f'<application-reference ucid="EP-{plan.app_number}-A" status="new" is-representative="NO">'
            f'<document-id status="new" format="epo"><country>EP</country><doc-number>{plan.app_number}</doc-number>'
            f"<kind>A</kind><date>{_ymd(plan.app_date)}</date></document-id></application-reference>"
        )
        if plan.priority is not None:
            country, number, date = plan.priority
            text += (
                f'<priority-claims status="new"><priority-claim ucid="{country}-{number}-A" status="new">'
                f'<document-id status="new" format="epo"><country>{country}</country><doc-number>{number}</doc-number>'
                f"<kind>A</kind><date>{_ymd(date)}</date></document-id></priority-claim></priority-claims>"
            )
        return text

    @staticmethod
    def _parties(plan: _PatentPlan) -> str:
        name, country = plan.applicant
        inventors = "".join(
            f'<inventor status="new" format="epo"><addressbook><name>{person}</name></addressbook></inventor>'
            for person in plan.inventors
        )
        return (
            f'<parties><applicants><applicant status="new" format="epo"><addressbook><name>{name}</name>'
            f"<address><country>{country}</country></address></addressbook></applicant></applicants>"
            f"<inventors>{inventors}</inventors></parties>"
        )


def _ipcr_text(symbol: str, date: int) -> str:
    """The fixed-width ``classification-ipcr`` text of MAREC (symbol, version, flags)."""
    subclass, group = symbol.split(" ")
    return f"{subclass}  {group:<10}  20060101A I{_ymd(min(date, _dt.date(2005, 10, 8).toordinal()))}RMEP        "


# The ways reports word one paragraph and a range of paragraphs.
_PASSAGE_STYLES = (("paragraph [{0:04d}]", "paragraph [{0:04d}] - paragraph [{1:04d}]"),
                   ("paragraph [{0:04d}]", "paragraph [{0:04d}] - [{1:04d}]"),
                   ("[{0:04d}]", "[{0:04d}]-[{1:04d}]"))


def passage_indication(xpaths: Sequence[str], *, rng: random.Random) -> str:
    """An EPO-style passage indication naming exactly the description paragraphs
    ``xpaths`` (``/patent-document/description/p[j]``; paragraph j is numbered [000j]).

    Runs of consecutive paragraphs become ranges, worded as search reports word them
    (``paragraph [0012] - paragraph [0020]``, ``paragraph [0012] - [0020]``,
    ``[0012]-[0020]``), each in its ``* ... *``; a figure is sometimes added
    (``; figure 2``), as reports do.
    """
    numbers = sorted(int(x[x.rindex("[") + 1:-1]) for x in xpaths)
    # Runs of consecutive paragraphs keep the difference between number and position.
    runs = [[n for _, n in run] for _, run in groupby(enumerate(numbers), key=lambda pair: pair[1] - pair[0])]
    single, ranged = _PASSAGE_STYLES[rng.randrange(3)]
    parts = [(single if len(run) == 1 else ranged).format(run[0], run[-1]) for run in runs]
    if rng.random() < 0.3:
        parts[-1] += f"; figure {rng.randrange(1, 6)}"
    return "\n".join(f"* {part} *" for part in parts)


def _indication_without_passages(rng: random.Random) -> str:
    """What a report says of a citation for which it marks no paragraph: mostly the whole
    document, else figures only, a printed page and lines, or claims."""
    draw = rng.random()
    if draw < 0.6:
        return "* the whole document *"
    if draw < 0.75:
        first = rng.randrange(1, 4)
        return f"* figures {first}-{first + rng.randrange(1, 3)} *"
    if draw < 0.9:
        line = rng.randrange(1, 30)
        return f"* page {rng.randrange(2, 12)}, line {line} - line {line + rng.randrange(3, 20)} *"
    return f"* claims 1-{rng.randrange(2, 4)} *"


def _citations_xml(citations: Sequence[_CitationPlan], *, seed: int = 0) -> str:
    # The indications draw from a stream of their own, so the rest of the corpus is the
    # same as before they were written.
    rng = random.Random(f"indications-{seed}")
    parts = ["<citations><patent-citations>"]
    for citation in citations:
        country, number, kind = citation.ucid.split("-")
        category = f' category="{citation.category}"' if citation.category else ""
        parts.append(
            f'<patcit ucid="{citation.ucid}" status="new"><document-id status="new" format="epo">'
            f"<country>{country}</country><doc-number>{number}</doc-number><kind>{kind}</kind></document-id>"
            f'<sources><source name="{citation.source}"{category} created-by-npl="N"/></sources>'
        )
        passages = list(citation.passages)
        if citation.rel_claims:
            # The report's own words first (what an assessor reads), then the paragraphs
            # they name as XPaths (what the CLEF-IP organisers extracted from them).
            passages.insert(0, passage_indication(citation.passages, rng=rng) if citation.passages
                            else _indication_without_passages(rng))
        parts.extend(f"<rel-passage><passage>{passage}</passage><category>{citation.category}</category>"
                     f"<rel-claims>{citation.rel_claims}</rel-claims></rel-passage>" for passage in passages)
        parts.append("</patcit>")
    parts.append("</patent-citations></citations>")
    return "".join(parts)


# Worker-process state (one renderer per process, built by the pool initializer).
_WORKER_RENDERER: _Renderer | None = None


def _init_worker(seed: int, n_clusters: int, root: str) -> None:
    global _WORKER_RENDERER
    _WORKER_RENDERER = _Renderer(seed, n_clusters, root)


def _render_chunk(plans: list[_PatentPlan]) -> list[tuple[dict[str, int], int, int]]:
    renderer = _WORKER_RENDERER
    if renderer is None:  # pragma: no cover - the initializer always runs first
        raise RuntimeError("worker not initialised")
    return [renderer.render(plan) for plan in plans]


def generate_corpus(out_dir: str | os.PathLike[str], *, n_patents: int, seed: int = 0, start_year: int = 1985,
                    end_year: int = 2006, n_clusters: int | None = None, grant_rate: float = 0.7, wo_rate: float = 0.3,
                    divisional_rate: float = 0.04, a2_rate: float = 0.25, applicant_citation_rate: float = 0.3,
                    external_citation_rate: float = 0.25,
                    language_shares: Sequence[tuple[str, float]] = (("EN", 0.68), ("DE", 0.24), ("FR", 0.08)),
                    workers: int | None = None, chunk_size: int = 200, progress: bool = True) -> GenerationSummary:
    """Write a synthetic CLEF-IP corpus of ``n_patents`` patents under ``out_dir``.

    Parameters
    ----------
    out_dir : path-like
        The corpus root; it must not exist yet (the corpus is built under a temporary
        name and moved into place when complete). Files are laid out as in CLEF-IP:
        ``EP/000001/01/01/80/EP-1010180-B1.xml``; ``corpus.json`` records the parameters
        and counts.
    n_patents : int
        Number of EP patents (applications). Each gives 1 to 4 files: A1 (or A2 and,
        usually, A3), B1 when granted in time, and an earlier WO A1 for some -- about 2.1
        files per patent with the defaults (100,767 files for 48,000 patents, seed 1).
    seed : int
        The corpus is a function of the seed and the other parameters (not of
        ``workers``).
    start_year, end_year : int
        Publication dates spread over these years (CLEF-IP: 1985-2006), so that a split
        by date gives a corpus and a topic pool.
    n_clusters : int, optional
        Technology clusters (one IPC subclass each). Default: one per 150 patents,
        between 6 and 400.
    grant_rate : float
        Share of patents granted (a B1 is written when the grant, 2 to 5.5 years after
        the application publication, falls before the end of ``end_year``).
    wo_rate : float
        Share of patents with an earlier WO publication in their family.
    divisional_rate : float
        Share of patents that are divisionals of an earlier patent of their cluster (same
        family, most key terms shared).
    a2_rate : float
        Share of applications published without search report (A2, report later as A3).
    applicant_citation_rate : float
        Share of patents that also carry applicant citations (source APP, no category).
    external_citation_rate : float
        Share of search-report citations that name documents outside the corpus.
    language_shares : sequence of (lang, share)
        Languages of the proceedings (EN, DE, FR) and their shares.
    workers : int, optional
        Processes rendering files (default: the CPU count). ``1`` renders in-process.
    chunk_size : int
        Patents per task sent to a worker.
    progress : bool
        Show a progress bar (tqdm) on stderr.

    Returns
    -------
    GenerationSummary
    """
    rates = {"grant_rate": grant_rate, "wo_rate": wo_rate, "divisional_rate": divisional_rate,
             "a2_rate": a2_rate, "applicant_citation_rate": applicant_citation_rate,
             "external_citation_rate": external_citation_rate}
    if not isinstance(n_patents, int) or isinstance(n_patents, bool) or n_patents < 1:
        raise ParameterError(f"n_patents must be a positive integer, not {n_patents!r}")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ParameterError(f"seed must be an integer, not {seed!r}")
    if not (1900 <= start_year <= end_year <= 2100):
        raise ParameterError(f"need 1900 <= start_year <= end_year <= 2100, got {start_year} and {end_year}")
    if n_clusters is not None and (not isinstance(n_clusters, int) or n_clusters < 1):
        raise ParameterError(f"n_clusters must be a positive integer, not {n_clusters!r}")
    for name, value in rates.items():
        if not (0.0 <= value <= 1.0):
            raise ParameterError(f"{name} must be between 0 and 1, not {value!r}")
    if not language_shares or any(lang not in _LANGS or share < 0 for lang, share in language_shares) \
            or sum(share for _, share in language_shares) <= 0:
        raise ParameterError(f"language_shares must pair EN/DE/FR with non-negative shares, got {language_shares!r}")
    if workers is not None and (not isinstance(workers, int) or workers < 1):
        raise ParameterError(f"workers must be a positive integer, not {workers!r}")
    if chunk_size < 1:
        raise ParameterError(f"chunk_size must be positive, not {chunk_size!r}")
    target = Path(out_dir)
    if target.exists():
        raise ParameterError(f"{target} exists already; generate_corpus writes a new directory")
    if n_clusters is None:
        n_clusters = max(6, min(400, round(n_patents / 150)))
    if workers is None:
        workers = os.cpu_count() or 1

    from tqdm import tqdm

    started = time.perf_counter()
    planner = _Planner(n_patents=n_patents, seed=seed, start_year=start_year, end_year=end_year,
                       n_clusters=n_clusters, language_shares=tuple(language_shares), rates=rates)
    totals: Counter[str] = Counter()
    n_citations = written = 0
    plans = planner.plans()
    chunks = iter(lambda: list(islice(plans, chunk_size)), [])  # drawn as they are sent

    def collect(rendered: list[tuple[dict[str, int], int, int]], bar) -> None:
        nonlocal n_citations, written
        for counts, cited, size in rendered:
            totals.update(counts)
            n_citations += cited
            written += size
        bar.update(len(rendered))

    with atomic_directory(target) as tmp, tqdm(total=n_patents, unit="patent", disable=not progress,
                                                desc="generating") as bar:
        root = str(tmp)
        if workers == 1:
            _init_worker(seed, n_clusters, root)
            for batch in chunks:
                collect(_render_chunk(batch), bar)
        else:
            import multiprocessing

            context = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
            with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_init_worker,
                                     initargs=(seed, n_clusters, root)) as executor:
                # At most a few chunks in flight: memory stays flat whatever n_patents is.
                in_flight: deque = deque()
                for batch in chunks:
                    in_flight.append(executor.submit(_render_chunk, batch))
                    if len(in_flight) >= 2 * workers:
                        collect(in_flight.popleft().result(), bar)
                while in_flight:
                    collect(in_flight.popleft().result(), bar)
        summary = GenerationSummary(
            out_dir=str(target), seed=seed, n_patents=n_patents, n_families=planner.n_families,
            n_documents=sum(totals.values()), documents_by_kind=dict(sorted(totals.items())),
            n_citations=n_citations, bytes_written=written, seconds=time.perf_counter() - started,
            start_year=start_year, end_year=end_year, n_clusters=n_clusters,
        )
        manifest = {
            "generator": "pateval.collection.synthetic",
            "parameters": {"n_patents": n_patents, "seed": seed, "start_year": start_year, "end_year": end_year,
                           "n_clusters": n_clusters, **rates,
                           "language_shares": [list(pair) for pair in language_shares]},
            "counts": {"patents": n_patents, "families": planner.n_families, "documents": summary.n_documents,
                       "documents_by_kind": summary.documents_by_kind, "citations": n_citations},
        }
        with atomic_output(Path(tmp, "corpus.json")) as handle:
            json.dump(manifest, handle, indent=2)
            handle.write("\n")
    summary.seconds = time.perf_counter() - started
    return summary
