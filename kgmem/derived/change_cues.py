"""What a plain-text memory says about change — pure functions over its text, no model and no database.

A statement that retires an earlier one usually says so in words: a habit or a preference stopped or reversed
("quit", "gave up", "no longer", "not … anymore", "used to"), a switch to something new ("switched to",
"moved to", "took over", "the new … is"), a correction ("correction:", "typo", "should read"), or a new value of
a single-valued property (a phone number, a price, a dosage, a version, a meeting time, a weight). And a
statement that mentions the same thing without changing it says that too: "still", a question or a
hypothetical ("should I quit?", "thinking about moving"), a temporary exception ("for a week", "until
Friday"), someone else's situation ("my sister …").

:func:`cues` reads those signals; :mod:`kgmem.derived.supersession` turns the signals of a pair of memories
into features for its model. The word lists are general English, written for kgmem: they are not taken from
any evaluation set. The cross-subject implications (a diet, a move, a sale, a break-up that retires what an
earlier statement took for granted) are a small versioned table: :data:`IMPLICATIONS`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

IMPLICATIONS_VERSION = "implications/v2"  # v2: the two platform entries dropped (iOS and Android coexist)


def _words(*alternatives: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w'])(?:" + "|".join(alternatives) + r")(?![\w'])", re.IGNORECASE)


# a habit, a preference, a membership or a state stopped or reversed
STOP = _words(
    r"quit(?:s|ting)?",
    r"stop(?:s|ped|ping)?",
    r"gave up",
    r"giv(?:e|es|ing) up",
    r"given up",
    r"no longer",
    r"not any ?more",
    r"any ?more",
    r"no more",
    r"cancel(?:l?ed|s|l?ing)?",
    r"unsubscribed?",
    r"dropped(?: out)?",
    r"ditched",
    r"dumped",
    r"over it",
    r"done with",
    r"(?:is|are|'s|'re) (?:done|over|finished|off)",
    r"sworn off",
    r"swore off",
    r"cut (?:out|back on)",
    r"kicked the habit",
    r"broke up",
    r"split up",
    r"divorced",
    r"left",
    r"resigned",
    r"retired",
    r"moved out",
    r"sold",
    r"got rid of",
    r"gone off",
    r"went off",
    r"off (?:it|them|that|those)",
    r"used to",
    r"never again",
    r"ended",
    r"closed (?:my|the|our) account",
    r"paused",
    r"deactivated",
    r"discontinued",
    r"weaned off",
    r"(?:is|are|'s|'re) gone",
    r"not (?:doing|going|eating|drinking|using|taking|playing) (?:that|it|those)",
    r"lost interest",
    r"outgrown",
    r"can'?t stand",
    r"hate[sd]?",
)
# something new in place of something old
SWITCH = _words(
    r"switch(?:ed|es|ing)?(?: over)?(?: to)?",
    r"chang(?:ed|es|ing)(?: to)?",
    r"moved(?: to| into| in with)?",
    r"moving to",
    r"relocat(?:ed|ing)",
    r"now",
    r"nowadays",
    r"these days",
    r"lately",
    r"currently",
    r"at the moment",
    r"from now on",
    r"going forward",
    r"starting (?:today|tomorrow|monday|next week|this week)",
    r"as of (?:today|now|this week|this month)",
    r"new",
    r"newly",
    r"latest",
    r"instead",
    r"replac(?:ed|es|ing)",
    r"rotat(?:ed|es|ing)",
    r"reset",
    r"took over",
    r"tak(?:es|ing) over",
    r"taken over",
    r"handed (?:over|off)",
    r"hand(?:s|ing)? (?:over|off)",
    r"passed (?:the \w+ )?(?:to|over)",
    r"stepp(?:ed|ing) (?:in|down|up)",
    r"promoted",
    r"transferred",
    r"reassigned",
    r"appointed",
    r"elected",
    r"hired",
    r"upgraded",
    r"downgraded",
    r"updated",
    r"bumped",
    r"rescheduled",
    r"pushed (?:back|to)",
    r"moved (?:up|back)",
    r"raised",
    r"lowered",
    r"increased",
    r"decreased",
    r"reduced",
    r"went (?:up|down) to",
    r"(?:up|down) to",
    r"dropped to",
    r"rose to",
    r"fell to",
    r"is (?:now|finally)",
    r"are (?:now|finally)",
    r"became",
    r"become",
    r"turned",
    r"got (?:a|my|our) new",
    r"went (?:vegan|vegetarian|sober|keto)",
    r"gone (?:vegan|vegetarian|sober|keto)",
    r"since (?:january|february|march|april|may|june|july|august|september|october|november|december|last \w+)",
)
# an earlier statement was wrong
CORRECTION = _words(
    r"correction",
    r"corrected",
    r"to correct",
    r"typo",
    r"erratum",
    r"errata",
    r"mistake",
    r"mistakenly",
    r"wrong",
    r"incorrect(?:ly)?",
    r"in error",
    r"should (?:read|be|say|have said)",
    r"i meant",
    r"meant to say",
    r"actually",
    r"my bad",
    r"scratch that",
    r"ignore (?:my|the) (?:last|previous|earlier)",
    r"amend(?:ed|ment)?",
    r"revised",
    r"retract(?:ed)?",
    r"not \w+,? but",
    r"update:",
    r"clarification",
)
# the statement keeps things as they were
STILL = _words(
    r"still",
    r"as always",
    r"as usual",
    r"same as (?:ever|always|before)",
    r"continu(?:e|es|ing) to",
    r"keeps?",
    r"remains?",
    r"stay(?:s|ed)?",
    r"unchanged",
    r"hasn'?t changed",
    r"no change",
    r"again",
    r"yet again",
    r"back (?:to|at|in)",
)
# wondering, planning, proposing: nothing has changed yet
HYPOTHETICAL = _words(
    r"if",
    r"unless",
    r"would",
    r"might",
    r"maybe",
    r"perhaps",
    r"considering",
    r"thinking (?:about|of)",
    r"should (?:i|we|he|she|they)",
    r"wondering",
    r"plan(?:s|ning)? to",
    r"want(?:s)? to",
    r"hop(?:e|ing) to",
    r"going to",
    r"gonna",
    r"will",
    r"could",
    r"propos(?:e|ed|al)",
    r"suggest(?:ed|ion|s)?",
    r"what if",
    r"how about",
    r"in case",
    r"tempted",
    r"dream(?:ing)? of",
    r"someday",
    r"one day",
    r"rumou?r",
    r"draft",
    r"pending",
    r"tentative(?:ly)?",
)
# a change that ends by itself: a trip, a loan, a stand-in
TEMPORARY = _words(
    r"for (?:a|an|one|two|three|four|a few|a couple of|the next|the|\d+) (?:day|night|week|weekend|month|couple of (?:days|weeks))s?",
    r"this (?:week|weekend) only",
    r"just (?:for|this|today|tonight)",
    r"until (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|next \w+|the \w+|\w+ \d+|\d+)",
    r"till (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|next \w+|the \w+)",
    r"temporar(?:y|ily)",
    r"for now",
    r"for the time being",
    r"while \w+ (?:is|are) (?:away|out|off|on leave|on vacation)",
    r"covering (?:for)?",
    r"filling in",
    r"stand(?:ing)?[- ]in",
    r"on leave",
    r"out of (?:the )?office",
    r"on (?:vacation|holiday|a trip)",
    r"visiting",
    r"trip",
    r"staging",
    r"test(?:ing)? (?:env|environment|server)",
    r"sandbox",
    r"dry[- ]run",
    r"interim",
    r"acting",
)
NEGATION = _words(r"not", r"no", r"never", r"none", r"nothing", r"without", r"\w+n't", r"cannot", r"nobody", r"nor")
FIRST_PERSON = _words(r"i", r"i'm", r"i've", r"i'd", r"i'll", r"me", r"my", r"mine", r"myself", r"we", r"our", r"us")
# someone other than the speaker (and other than who the earlier statement was about)
OTHER_PERSON = _words(
    r"(?:my|his|her|their|our|your) (?:wife|husband|partner|girlfriend|boyfriend|fianc[eé]e?|spouse|mom|mum|mother|"
    r"dad|father|sister|brother|sibling|son|daughter|kid|kids|child|children|cousin|aunt|uncle|niece|nephew|"
    r"grandma|grandpa|grandmother|grandfather|friend|roommate|flatmate|housemate|neighbou?r|colleague|coworker|"
    r"co-worker|boss|manager|teammate|classmate|landlord|tenant|client|customer)(?:['’]s)?",
    r"someone else",
    r"(?:he|she|they) (?:said|says|told|wants|asked)",
)
# kin and relations: "my sister", "the user's partner", "Omar's wife" — the statement is about that person
KIN = (
    r"wife|husband|partner|girlfriend|boyfriend|fianc[eé]e?|spouse|mom|mum|mother|dad|father|sister|brother|sibling|"
    r"son|daughter|kid|kids|child|children|baby|cousin|aunt|uncle|niece|nephew|grandma|grandpa|gran|grandmother|"
    r"grandfather|friend|roommate|flatmate|housemate|neighbou?r|colleague|coworker|co-worker|teammate|classmate|"
    r"landlord|in-laws"
)
_PREFIX = re.compile(r"^\s*(?:[#@]?[\w.&' -]{1,30}?\s*[:|]\s*)+")  # "#sre:", "Mom:", "CRM | Acme |", "deploy log:"
_SELF = re.compile(r"^(?:i|i'm|im|i've|i'd|i'll|me|my|mine|we|we're|we've|our|us|the user|user)\b", re.IGNORECASE)
_KIN_OF = re.compile(
    r"^(?:(?:my|our|his|her|their|the user's|the user’s)|([A-Z][\w-]+)(?:'s|’s))\s+(?:(?:little|big|older|younger|"
    r"best|new|old)\s+)?(" + KIN + r")\b(?:\s+([A-Z][\w-]+))?",
    re.IGNORECASE,
)
# someone reporting what another did: "Priya says …", "my mom told me …" (the user's own report stays self)
_REPORTED = re.compile(
    r"^(?:[A-Z][\w-]+|(?:my|our)\s+(?:" + KIN + r"))\s+(?:says|said|tells\s+me|told\s+me|mentioned|reports|"
    r"reported|thinks|texted|wrote)\s+(?:that\s+)?",
)
# "Carla's boss", "Hannah's manager": the holder of someone else's role ("my boss" is the speaker's own slot)
_ROLE_OF = re.compile(
    r"^([A-Z][\w-]+)(?:'s|’s)\s+(boss|manager|supervisor|assistant|deputy|lawyer|doctor|coach|agent|team)\b"
)
_NAME = re.compile(r"^([A-Z][\w-]+)(?:'s|’s)?\b")
_NOT_NAMES = frozenset(
    "the a an this that these those it its there here what when where who why how is are was were do does did "
    "can could should would will just so and but or if yes no ok okay also update note fyi pls please new "
    "today yesterday tomorrow "
    # a chat turn's opening word ("Yep, I made it", "Wow, that's great"): no name
    "yep yeah yup nope hey hi hello thanks thank sure cool awesome great nice wow woah whoa aww oh ah hmm haha "
    "lol omg congrats sorry definitely totally absolutely really well right".split()
)


def subject(text: str) -> str | None:
    """Who or what a statement is about, read from how it starts (pure, a heuristic): ``self`` (I, my, we, the
    user; or a first-person statement that leaves the subject out), ``kin:<relation>`` ("my sister", "my
    roommate Jess", "the user's partner"; ``kin:<relation>:<whose>`` for "Omar's wife"), ``name:<name>``
    ("Leo's at Oakwood", "Fatima got promoted"), or None when it cannot tell. A speaker or channel prefix
    ("Mom:", "#sre:", "CRM | Acme |") is skipped."""
    # leading whitespace off first: _PREFIX's class holds the space, so its \s* gave back a long leading run one
    # character at a time and rescanned the rest (quadratic: 4k spaces took 3 s)
    body = _PREFIX.sub("", text.lstrip(), count=1).lstrip(" -–—\"'“(")
    body = _REPORTED.sub("", body, count=1)  # "Priya says Arjun moved …" is about Arjun
    kin = _KIN_OF.match(body) or _ROLE_OF.match(body)
    if kin:
        whose, relation = kin.group(1), kin.group(2).lower()
        return f"kin:{relation}" + (f":{whose.lower()}" if whose else "")
    if _SELF.match(body):
        return "self"
    m = _NAME.match(body)
    if m and m.group(1).lower() not in _NOT_NAMES:
        return f"name:{m.group(1).lower()}"
    if FIRST_PERSON.search(body):  # chat leaves the subject out: "started bouldering, I'm obsessed"
        return "self"
    return None


def someone_else(newer: str | None, older: str | None) -> bool:
    """Whether two statements are about different people by their :func:`subject`: one about the speaker (or
    the user) and one about a relation ("my sister", "the user's partner"), two different relations, or a
    relation of a person and that person ("Omar's wife" / "Omar")."""
    if newer is None or older is None or newer == older:
        return False
    kin_n, kin_o = newer.startswith("kin:"), older.startswith("kin:")
    if kin_n and kin_o:
        return True
    if kin_n or kin_o:
        kin, other = (newer, older) if kin_n else (older, newer)
        whose = kin.split(":")[2] if kin.count(":") == 2 else None
        return other == "self" or (whose is not None and other == f"name:{whose}")
    return False


_QUALIFIER_BEFORE = re.compile(r"([a-z][\w-]*)[\s:]+$")  # what _qualifier_before finds (in linear time)


def _qualifier_before(low: str, end: int) -> str | None:
    """The word right before ``low[end:]``: what ``_QUALIFIER_BEFORE.search(low[:end])`` finds, read from the end
    (the regex tries every start of a long token and rescans it: quadratic on an 8k-character token). The
    separators are whitespace and colons (at least one); the word is the run of word characters and hyphens
    before them, from its first ASCII lower-case letter."""
    j = end
    while j > 0 and (low[j - 1].isspace() or low[j - 1] == ":"):
        j -= 1
    if j == end:
        return None
    k = j
    while k > 0 and (low[k - 1].isalnum() or low[k - 1] in "_-"):
        k -= 1
    for i in range(k, j):
        if "a" <= low[i] <= "z":
            return low[i:j]
    return None


def qualifiers(text: str, nouns: frozenset[str]) -> dict[str, str]:
    """For each of ``nouns`` (value nouns both statements use), the content word right before its first use
    ("search p99" → {"p99": "search"}, "Q3 events budget" → {"budget": "events"})."""
    if not nouns:
        return {}
    out: dict[str, str] = {}
    low = text.lower()
    for noun in nouns:
        i = low.find(noun)
        if i <= 0:
            continue
        word = _qualifier_before(low, i)
        if word and word not in _STOPWORDS and word not in _NOT_NAMES:
            out[noun] = word
    return out


QUESTION = re.compile(
    r"\?\s*$|\?\s+\S|^\s*(?:should|shall|can|could|would|do|does|did|is|are|am|will)\b", re.IGNORECASE
)
# single-valued properties whose new value retires the old one
VALUE_NOUNS = _words(
    r"address",
    r"phone",
    r"number",
    r"mobile",
    r"cell",
    r"e-?mail",
    r"price",
    r"cost",
    r"fee",
    r"rate",
    r"salary",
    r"rent",
    r"budget",
    r"owner",
    r"on-?call",
    r"version",
    r"release",
    r"dose",
    r"dosage",
    r"prescription",
    r"meeting",
    r"standup",
    r"stand-up",
    r"slot",
    r"time",
    r"deadline",
    r"password",
    r"pin",
    r"wi-?fi",
    r"account",
    r"plan",
    r"tier",
    r"school",
    r"gym",
    r"doctor",
    r"dentist",
    r"gp",
    r"bank",
    r"car",
    r"job",
    r"title",
    r"role",
    r"position",
    r"team",
    r"manager",
    r"lead",
    r"contact",
    r"rep",
    r"captain",
    r"coach",
    r"treasurer",
    r"chair",
    r"weight",
    r"blood pressure",
    r"a1c",
    r"score",
    r"latency",
    r"p\d\d",
    r"balance",
    r"savings",
    r"count",
    r"size",
    r"limit",
    r"quota",
    r"home",
    r"city",
    r"apartment",
    r"flat",
    r"house",
    r"office",
    r"desk",
    r"room",
    r"schedule",
    r"hours",
    r"status",
)
ROLE_NOUNS = _words(
    r"manager",
    r"boss",
    r"lead",
    r"head",
    r"owner",
    r"on-?call",
    r"primary",
    r"captain",
    r"coach",
    r"chair",
    r"president",
    r"treasurer",
    r"secretary",
    r"director",
    r"supervisor",
    r"rep(?:resentative)?",
    r"contact",
    r"point person",
    r"maintainer",
    r"admin",
    r"doctor",
    r"gp",
    r"dentist",
    r"therapist",
    r"babysitter",
    r"nanny",
    r"tutor",
    r"super(?:intendent)?",
    r"landlord",
    r"vendor",
    r"account (?:manager|exec(?:utive)?)",
    r"runs",
    r"in charge",
    r"responsible for",
)
_VALUE_SHAPES = (
    ("phone", re.compile(r"(?<!\d)(?:\+?\d[\d\-. ()]{6,}\d)(?!\d)")),
    ("email", re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+\.[\w.]+")),  # from a run's start: linear
    (
        "money",
        # "1,200 dollars", "€5", "120k"; tried once per run of digits and commas, from its start ("1,1,1,…" made
        # every digit a start that rescanned the run: quadratic): the run must end in a unit and hold a digit
        # at a word boundary
        re.compile(
            r"[$€£¥]\s?\d[\d,]*(?:\.\d+)?"
            r"|(?<![\d,])(?=[\d,]*+(?:\.\d+)?\s?(?:dollars|euros|pounds|usd|eur|gbp|k)\b)[\d,]*?\b\d",
            re.I,
        ),
    ),
    ("time", re.compile(r"\b\d{1,2}(?::\d{2})?\s?(?:am|pm)\b|\b\d{1,2}:\d{2}\b", re.I)),
    ("version", re.compile(r"\bv?\d+\.\d+(?:\.\d+)+\b|\bv\d+(?:\.\d+)?\b", re.I)),
    ("dose", re.compile(r"\b\d+(?:\.\d+)?\s?(?:mg|mcg|µg|ml|units?|iu)\b", re.I)),
    (
        "measure",
        re.compile(
            r"\b\d+(?:\.\d+)?\s?(?:kg|kgs|lb|lbs|pounds|stone|ms|s|sec|seconds|minutes|min|hours|hrs|km|mi|miles|"
            r"%|percent|mmhg|bpm|cm|in|ft|gb|mb|tb|k|m)\b",
            re.I,
        ),
    ),
    ("date", re.compile(r"\b(?:\d{1,2}(?:st|nd|rd|th)|\d{4}-\d{2}-\d{2})\b", re.I)),
    ("number", re.compile(r"\d")),
)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")

# what a plant-based food is called after ("coconut milk", "almond milk ice cream", "vegan cheese", "peanut
# butter"): no animal product
_PLANT_WORDS = ("coconut", "almond", "oat", "soy", "rice", "cashew", "peanut", "cocoa", "vegan", "plant", "dairy-free")
_NOT_PLANT = "".join(rf"(?<!{w} )(?<!{w} milk )" for w in _PLANT_WORDS) + r"(?<!non-dairy )(?<!ice )"

# Cross-subject implications: a memory that says the first (e.g. "went vegetarian") retires an earlier memory
# that takes the second for granted ("my favourite is the bacon burger"). General knowledge, versioned.
IMPLICATIONS: tuple[tuple[str, re.Pattern[str], re.Pattern[str]], ...] = (
    (
        "diet without meat",
        _words(r"vegan", r"vegetarian", r"plant-based", r"pescatarian", r"meat-free", r"no (?:more )?meat", r"veggie"),
        _words(
            r"meat",
            r"beef",
            r"steak",
            r"burgers?",
            r"cheeseburgers?",
            r"bacon",
            r"pork",
            r"ham",
            r"chicken",
            r"wings",
            r"lamb",
            r"sausages?",
            r"brisket",
            r"ribs",
            r"bbq",
            r"barbecue",
            r"pepperoni",
            r"salami",
            r"turkey",
            r"meatballs?",
            r"jerky",
            r"kebabs?",
        ),
    ),
    (
        "diet without animal products",
        _words(r"vegan", r"plant-based", r"dairy-free", r"lactose"),
        _words(_NOT_PLANT + r"(?:cheese|milk|cream|butter|yogh?urt|latte)", r"eggs?", _NOT_PLANT + r"ice cream"),
    ),
    (
        "no alcohol",
        _words(r"sober", r"teetotal", r"alcohol-free", r"quit drinking", r"stopped drinking", r"dry (?:january|month)"),
        _words(
            r"wine",
            r"beer",
            r"ales?",
            r"whisk(?:e)?y",
            r"vodka",
            r"gin",
            r"cocktails?",
            r"drinks",
            r"bourbon",
            r"tequila",
            r"pints?",
            r"bar",
        ),
    ),
    (
        "no car",
        _words(
            r"sold (?:my|the|our) car",
            r"no (?:longer have a )?car",
            r"car-free",
            r"bike to work",
            r"cycl(?:e|ing) to work",
            r"take the (?:bus|train|subway|tube)",
            r"public transport",
        ),
        _words(r"drive", r"drives", r"driving", r"commute by car", r"parking", r"car"),
    ),
    (
        "gluten-free or low-carb",
        _words(r"gluten-free", r"celiac", r"coeliac", r"keto", r"low-carb"),
        _words(
            r"bread", r"pasta", r"pizza", r"bagels?", r"croissants?", r"noodles", r"sandwich(?:es)?", r"toast", r"cake"
        ),
    ),
    (
        "not together any more",
        _words(
            r"broke up",
            r"split up",
            r"divorced",
            r"separated",
            r"single again",
            r"ex-(?:wife|husband|girlfriend|boyfriend|partner)",
        ),
        _words(
            r"girlfriend", r"boyfriend", r"wife", r"husband", r"partner", r"fianc[eé]e?", r"date night", r"anniversary"
        ),
    ),
    (
        "no longer working there",
        _words(
            r"laid off",
            r"resigned",
            r"quit (?:my|the) job",
            r"left (?:my|the) job",
            r"retired",
            r"new job",
            r"fired",
            r"let go",
        ),
        _words(r"commute", r"office", r"boss", r"coworkers?", r"colleagues?", r"shift", r"works? at", r"job"),
    ),
    (
        "no smoking",
        _words(
            r"quit smoking",
            r"stopped smoking",
            r"smoke-free",
            r"non-smoker",
            r"nicotine patch",
            r"vap(?:e|ing) instead",
        ),
        _words(r"smok(?:e|es|er|ing)", r"cigarettes?", r"cigars?", r"pack a day", r"ppd", r"tobacco"),
    ),
)
IMPLICATION_NAMES = tuple(name for name, _, _ in IMPLICATIONS)

# Topics a habit or a taste is about: a newer memory that stops (or reverses) one of them retires an earlier one
# that takes it up, in whatever words each uses ("quit cigarettes" / "smokes a pack a day").
TOPICS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "smoking",
        _words(
            r"smok(?:e|es|ed|er|ers|ing)",
            r"cigarettes?",
            r"cigs?",
            r"cigars?",
            r"tobacco",
            r"nicotine",
            r"ppd",
            r"vap(?:e|es|ing)",
        ),
    ),
    (
        "alcohol",
        _words(
            r"alcohol",
            r"drink(?:s|ing)?",
            r"booze",
            r"wine",
            r"beers?",
            r"whisk(?:e)?y",
            r"vodka",
            r"gin",
            r"cocktails?",
            r"sober",
            r"pints?",
        ),
    ),
    (
        "caffeine",
        _words(r"coffee", r"espresso", r"caffeine", r"lattes?", r"cappuccinos?", r"cold brew", r"energy drinks?"),
    ),
    ("meat", _words(r"meat", r"beef", r"steak", r"burgers?", r"bacon", r"pork", r"chicken", r"vegetarian", r"vegan")),
    ("sugar", _words(r"sugar", r"sweets", r"candy", r"dessert", r"soda", r"chocolate")),
    (
        "exercise",
        _words(
            r"gym",
            r"workouts?",
            r"work(?:ing)? out",
            r"lifting",
            r"crossfit",
            r"yoga",
            r"pilates",
            r"running",
            r"runs?",
            r"jogging",
            r"swimming",
            r"cycling",
            r"climbing",
            r"bouldering",
        ),
    ),
    ("spicy food", _words(r"spicy", r"chil(?:i|li|ies|lies)", r"hot sauce", r"peppers?")),
    ("social media", _words(r"instagram", r"tiktok", r"twitter", r"facebook", r"social media", r"reddit")),
    ("subscription", _words(r"subscri(?:be|bed|ption|ptions)", r"membership", r"plan", r"account")),
)


@dataclass(frozen=True)
class Cues:
    """The change signals of one text (counts of matches, and the value types it states)."""

    stop: int
    switch: int
    correction: int
    still: int
    hypothetical: int
    temporary: int
    negation: int
    question: bool
    first_person: bool
    other_person: bool
    value_nouns: frozenset[str]
    role_nouns: frozenset[str]
    values: frozenset[str]  # value types stated: phone, email, money, time, version, dose, measure, date
    numbers: frozenset[str]
    matched: tuple[str, ...]  # the cue words found, for --explain
    clause_words: frozenset[str] = frozenset()  # content words of the sentences that state a change
    stopped_topics: frozenset[str] = frozenset()  # topics a stop cue's sentence names
    topics: frozenset[str] = frozenset()
    subject: str | None = None  # who or what the statement is about (:func:`subject`)
    tentative: int = 0  # hypothetical cues that commit to nothing (not "will", "going to": a plan may be a change)
    # worked out once per text (a memory is paired with up to 16 others): its content words, its tokens, the
    # tokens it negates and the tokens outside what it negates
    words: frozenset[str] = frozenset()
    tokens: frozenset[str] = frozenset()
    negated: frozenset[str] = frozenset()
    affirmed: frozenset[str] = frozenset()

    @property
    def changes(self) -> bool:
        """Whether the text could retire an earlier statement at all (the inference pass asks only then): a
        change cue, a value (a number, a phone, a price, a version, a dose, a measurement), or an implication."""
        return bool(self.stop or self.switch or self.correction or self.values or implication_triggers(self))

    def to_dict(self) -> dict[str, object]:
        return {
            "stop": self.stop,
            "switch": self.switch,
            "correction": self.correction,
            "still": self.still,
            "hypothetical": self.hypothetical,
            "temporary": self.temporary,
            "negation": self.negation,
            "question": self.question,
            "values": sorted(self.values),
            "matched": list(self.matched),
        }


def implication_triggers(c: Cues) -> tuple[str, ...]:
    return tuple(name for name in c.matched if name.startswith("implies:"))


_NEGATED = re.compile(
    r"(?:\b(?:not|no|never|nothing|without|hardly)|n't|\bnot ready to|\bdon'?t want to|\brefus\w* to)\W+(?:\w+\W+){0,2}$",
    re.IGNORECASE,
)
_SELF_NEGATED = re.compile(r"^(?:no|not|never|any ?more|any longer)\b", re.IGNORECASE)  # said with a negation


def _found(
    pattern: re.Pattern[str], text: str, *, unless_negated: bool = False, raw: list[str] | None = None
) -> list[str]:
    """The matches of ``pattern``; with ``unless_negated``, not those a negation just before cancels ("no
    changes", "hasn't moved", "not ready to quit") — a cue that carries its own negation ("no longer") stays.
    ``raw`` receives every match, cancelled or not."""
    out = []
    for m in pattern.finditer(text):
        cue = m.group(0).lower()
        if raw is not None:
            raw.append(cue)
        if (
            unless_negated
            and not _SELF_NEGATED.match(cue)
            and _NEGATED.search(text[max(0, m.start() - 40) : m.start()])
        ):
            continue
        out.append(cue)
    return out


def _union(patterns: list[re.Pattern[str]]) -> re.Pattern[str]:
    """One pattern that matches where any of ``patterns`` does (all compiled with the same flags): a cheap test
    before asking each of them."""
    flags = {p.flags for p in patterns}
    assert len(flags) == 1, "a union needs patterns compiled alike"
    return re.compile("|".join(f"(?:{p.pattern})" for p in patterns), flags.pop())


_WORD = re.compile(r"[a-z][a-z0-9']+")
_STOPWORDS = frozenset(
    "the a an and or but of to in on at for with from by is are was were be been being it its this that these those "
    "i me my we our you your he him his she her they them their there here so just really very too also have has "
    "had do does did not no now then than as about into out up down over some any all can will would should could "
    "get got go going went like lol im i'm it's that's don't".split()
)
_SENTENCE = re.compile(r"(?:[^.!?;\n]|[.!?;](?=[^\s.!?;]))+[.!?;]*")  # "0.5", "v2.4.0", "10.0.4.12" stay whole


def content_words(text: str) -> frozenset[str]:
    """Lower-case content words (a crude stem: a trailing 's' dropped)."""
    return frozenset(w.rstrip("s") for w in _WORD.findall(text.lower()) if w not in _STOPWORDS and len(w) > 2)


_DIGITS = re.compile(r"\d{2,}")
_TOKEN = re.compile(r"[$€£]?\d[\d,.:/-]*\w*|[a-z][a-z0-9'-]+", re.IGNORECASE)
# "not X", "X is wrong", "instead of X", "rather than X": the tokens a statement says are no longer (or never) so.
# "X is wrong" is tried from the start of a token only: from every character of a long token (a pasted key) the
# regex rescanned the rest of it, quadratic (16k characters took 5-9 s)
_NEGATING = re.compile(
    r"(?:\bnot|\bno longer|\binstead of|\brather than|\bno more|\bnever)\s+((?:\S+\s+){0,2}\S+)"
    r"|(?<!\S)(\S+(?:\s+\S+)?)\s+(?:is|was|are|were)\s+(?:wrong|incorrect|a typo|a mistake)",
    re.IGNORECASE,
)


def tokens(text: str) -> frozenset[str]:
    """Lower-case words and value tokens (numbers with their units or punctuation: "555-0147", "$120k"), without
    stop words."""
    out = {t.lower().rstrip(".,:") for t in _TOKEN.findall(text) if t.lower() not in _STOPWORDS and len(t) > 1}
    return frozenset(out | {d for t in out for d in _DIGITS.findall(t)})  # "555-0147" also "0147", "14th" "14"


def negated_tokens(text: str) -> frozenset[str]:
    """The tokens a statement negates or calls wrong ("not 0147", "$120k was wrong", "no longer at Nimbus")."""
    out: set[str] = set()
    for m in _NEGATING.finditer(text):
        out |= tokens(m.group(1) or m.group(2) or "")
    return frozenset(out)


def tokens_outside_negation(text: str) -> frozenset[str]:
    """The tokens of ``text`` outside what it negates (a token said both ways does not count as negated)."""
    return tokens(_NEGATING.sub(" ", text))


_CACHE = 1 << 16  # texts remembered by the per-text helpers below (the pass pairs each memory with up to 16)


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` as the cues read them (split at . ! ? ; and line ends — a point inside a number,
    a version or an address, "0.5 MPa", "v2.4.0", is not an end), blank ones left out."""
    return [s for s in _SENTENCE.findall(text) if s.strip()] or [text]


@lru_cache(maxsize=_CACHE)
def _sentences(text: str) -> tuple[tuple[str, frozenset[str]], ...]:
    return tuple((s, content_words(s)) for s in (_SENTENCE.findall(text) or [text]))


def nearest_sentence(text: str, words: frozenset[str]) -> str:
    """The sentence of ``text`` that shares the most content words with ``words`` (the first on a tie)."""
    return max(_sentences(text), key=lambda sw: len(sw[1] & words))[0]


@lru_cache(maxsize=_CACHE)
def keeps_without_change(sentence: str) -> bool:
    """Whether a sentence says a thing stays as it was ("still a cortado girl", "hasn't changed") and states no
    change of its own."""
    changed = any(_found(p, sentence, unless_negated=True) for p in (STOP, SWITCH, CORRECTION))
    return bool(_found(STILL, sentence)) and not changed


_COMMITTED = frozenset({"will", "going to", "gonna"})  # a future that is decided: "Aunt Rosa will take him"


_ANY_TOPIC = _union([rx for _, rx in TOPICS])
_ANY_TRIGGER = _union([trigger for _, trigger, _ in IMPLICATIONS])
_ANY_RETIRED = _union([retired for _, _, retired in IMPLICATIONS])
_DIGIT = re.compile(r"\d")  # every value shape but an email holds a digit


def _topics(text: str) -> frozenset[str]:
    if not _ANY_TOPIC.search(text):
        return frozenset()
    return frozenset(name for name, rx in TOPICS if rx.search(text))


def _value_kinds(text: str) -> frozenset[str]:
    if "@" not in text and not _DIGIT.search(text):
        return frozenset()
    return frozenset(kind for kind, rx in _VALUE_SHAPES if rx.search(text))


_CUES_CACHE = 1 << 14  # texts whose cues are remembered (about 4 KB each: 64 MB at most)


@lru_cache(maxsize=_CUES_CACHE)
def cues(text: str) -> Cues:
    """The change signals of ``text`` (pure; the last :data:`_CUES_CACHE` texts are remembered, so a later
    ingest in the same process reads its older neighbours' cues again for free). Each family of patterns is first tried as one union, so a text
    that holds none of them (most do not) costs one search, not one per pattern."""
    matched: list[str] = []
    raw: list[str] = []  # stop, switch and correction matches, negated or not
    found: dict[str, list[str]] = {}
    for name, pattern in (
        ("stop", STOP),
        ("switch", SWITCH),
        ("correction", CORRECTION),
        ("still", STILL),
        ("hypothetical", HYPOTHETICAL),
        ("temporary", TEMPORARY),
    ):
        changing = name in ("stop", "switch", "correction")
        hits = _found(pattern, text, unless_negated=changing, raw=raw if changing else None)
        found[name] = hits
        matched += [f"{name}:{h}" for h in hits]
    if _ANY_TRIGGER.search(text):
        for name, trigger, _ in IMPLICATIONS:
            if trigger.search(text):
                matched.append(f"implies:{name}")
    clause: set[str] = set()
    stopped: set[str] = set()
    # a text that states a change is tentative where the sentence stating it is ("if we switch to Fisher …"), not
    # for a hypothetical elsewhere in it ("Deadline moved again, now March 22. Dana says if we've submitted …")
    tentative = _uncommitted(found["hypothetical"])
    if raw:  # a sentence can state a change only where the whole text matches a change pattern
        stating: list[str] = []
        for sentence in _SENTENCE.findall(text):
            stops = _found(STOP, sentence, unless_negated=True)
            if (
                stops
                or _found(SWITCH, sentence, unless_negated=True)
                or _found(CORRECTION, sentence, unless_negated=True)
            ):
                clause |= content_words(sentence)
                stating.append(sentence)
            if stops:
                stopped |= _topics(sentence)
        if stating and tentative:
            tentative = sum(_uncommitted(_found(HYPOTHETICAL, s)) for s in stating)
    every_token = tokens(text)
    negating = _NEGATING.search(text) is not None
    return Cues(
        stop=len(found["stop"]),
        switch=len(found["switch"]),
        correction=len(found["correction"]),
        still=len(found["still"]),
        hypothetical=len(found["hypothetical"]),
        temporary=len(found["temporary"]),
        negation=len(NEGATION.findall(text)),
        question=bool(QUESTION.search(text)),
        first_person=bool(FIRST_PERSON.search(text)),
        other_person=bool(OTHER_PERSON.search(text)),
        value_nouns=frozenset(h for h in _found(VALUE_NOUNS, text)),
        role_nouns=frozenset(h for h in _found(ROLE_NOUNS, text)),
        values=_value_kinds(text),
        numbers=frozenset(_NUMBER.findall(text)),
        matched=tuple(matched),
        clause_words=frozenset(clause),
        stopped_topics=frozenset(stopped),
        topics=_topics(text),
        subject=subject(text),
        words=content_words(text),
        tokens=every_token,
        negated=negated_tokens(text) if negating else frozenset(),
        affirmed=tokens_outside_negation(text) if negating else every_token,
        tentative=tentative,
    )


def _uncommitted(hypothetical: Sequence[str]) -> int:
    """How many of the hypothetical cues found commit to nothing (not "will", "going to")."""
    return sum(1 for h in hypothetical if h not in _COMMITTED)


def implied_retirements(newer_text: str, older_text: str) -> tuple[str, ...]:
    """The implications by which ``newer_text`` retires ``older_text`` (names from :data:`IMPLICATIONS`)."""
    triggered, (already, retired) = _implication_sides(newer_text)[0], _implication_sides(older_text)
    # an older memory that states the same itself ("it's dairy-free vanilla with coconut cream frosting") takes
    # it for granted: it does not contradict it
    return tuple(name for name, _, _ in IMPLICATIONS if name in triggered and name in retired and name not in already)


@lru_cache(maxsize=_CACHE)
def _implication_sides(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """The implications ``text`` triggers, and those whose retired side it matches."""
    return (
        frozenset(name for name, trigger, _ in IMPLICATIONS if trigger.search(text))
        if _ANY_TRIGGER.search(text)
        else frozenset(),
        frozenset(name for name, _, retired in IMPLICATIONS if retired.search(text))
        if _ANY_RETIRED.search(text)
        else frozenset(),
    )
