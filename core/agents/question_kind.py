"""What a question asks for, which decides the route a person would pick (issue 22):

- RECORDS: something computed over rows (a count; a sum, average, minimum or maximum; a list or
  ranking filtered by conditions; a figure per group) or a field of a named record (an invoice's
  total, a table cell, a reported figure);
- TEXT: a fact stated in prose, a rule or policy, an explanation;
- SUMMARY: a summary, the main points, the gist, an overview.

Rules decide where their words are unambiguous; a question with no such words, or with words of
two kinds ("why did the total rise?"), is unsure, and one short model call under a JSON schema
(seed 004's route selection) decides it, where the answer matters: only when a table was selected.
A table's words never make a question RECORDS: only what it asks for does.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from core.annotations.conditions import YEAR_DIGITS, FISCAL_YEAR, QUARTER_SHORT, asks_yes_or_no
from core.config import Settings

RECORDS, TEXT, SUMMARY = "records", "text", "summary"
KINDS = (RECORDS, TEXT, SUMMARY)

# A request to condense: its words are never a computation or a single fact. "Outline" and
# "overview" count only as a request ("outline the…", "give me an overview"): "the risks outlined
# in the business overview" asks for the risks.
_SUMMARY = re.compile(
    r"\b(?:main|key)\s+(?:points?|takeaways?|messages?|themes?|findings?|highlights?|issues)\b|\bgist\b"
    r"|\bin\s+a\s+nutshell\b|\btl;?\s*dr\b|\bsum\s+(?:it\s+|this\s+|them\s+)?up\b|\bbrief\s+me\b|\brun-?down\b"
    r"|\brecap\b|\bwhat\s+(?:was|were|got)\s+(?:discussed|decided|agreed|covered)\b|\bwalk\s+me\s+through\b"
    r"|(?:^|\b(?:please|you|me|us|i|we|a|an|short|brief|quick|high-level)\s+)"
    r"(?:summari[sz]e|summary|summarising|summarizing|outline|overview)\b",
    re.I)

# Asking why or how something came about, what it means, what a rule allows: prose answers it.
# The reasons asked for outright ("why", "what drove", "the main driver") are the question even
# when a figure is its object ("what drove the change in margin?").
_REASON = re.compile(
    r"^\s*(?:why|explain|describe)\b|\bwhy\b|\bwhat\s+(?:drove|caused|led\s+to|explains?)\b"
    # what might bring a change about ("What could result in operating income rising by $6.5 million?")
    r"|\bwhat\s+(?:could|would|might|may|can)\s+(?:cause|result\s+in|lead\s+to|drive|trigger)\b"
    # how a figure is arrived at, whatever figure words its name holds ("How is net loss per share calculated?")
    r"|\bhow\s+(?:is|are|was|were)\s+(?:[\w,'’-]+\s+){0,10}?(?:determined|estimated|calculated|computed|derived)\s*\??\s*$"
    r"|\bhow\s+(?:does|do|did|is|are|was|were)\b.{0,120}?\brelate\b|\brelationship\b|\bcorrelat\w*"
    r"|\bconnect(?:s|ed|ion)?\s+(?:with|between|to)\b|\balign\w*\s+with\b"
    r"|\bcompar\w*\b.{0,120}?\b(?:discussions?|commentary|notes|narrative|strateg(?:y|ies)|plans)\b"
    r"|\b(?:what|which)\s+(?:was|were|is|are)\s+the\s+(?:\w+\s+){0,2}?(?:drivers?|reasons?|causes?|factors?)\b"
    r"|\b(?:what|which)\s+(?:\w+\s+){0,2}?(?:drivers|reasons|causes|factors)\s+(?:were|are|have|did|do)\b"
    r"|\b(?:drivers?|reasons?|causes?|factors?|influences?)\s+(?:for|behind|of|on)\b"
    r"|\b(?:effects?|impacts?|implications?|repercussions?)\b",
    re.I)
# A "what" question that ends on the preposition a participle governs asks for its complement, which prose states:
# "What is the increase in inventory due to?", "What were the investments mainly engaged in?", "What is
# fair value based on?", "What is the change in the obligation recognized as?"
_COMPLEMENT = re.compile(
    r"^\s*what\b.*\b(?:due|attributable|attributed|owing|related|relating|linked|recogni[sz]ed|recorded|engaged|based|used|"
    r"classified|allocated|stated|measured|carried|invested|exposed|subject|applied|charged|influenced|affected|driven|"
    r"impacted|caused|determined|offset|explained)\s+"
    r"(?:to|as|in|on|upon|for|at|by|with)\s*\?\s*$"
    # ... and "what" asked of a verb that says where a thing comes from or what it follows: "What do the
    # expenses result from?", "What does the distribution of receivables follow?"
    r"|^\s*what\s+(?:do|does|did)\b.*\b(?:result|arise|stem|derive|follow|depend|rely)\s*(?:from|on|upon)?\s*\?\s*$",
    re.I)
_EXPLANATION = re.compile(
    r"\bwhat\s+(?:results?\s+in|gives?\s+rise\s+to)\b|\b(?:composed|comprised)\s+of\b"
    r"|\b(?:explain|explanation|describe|reasons?|drove|(?:key|main|primary|principal|major)\s+drivers?|"
    r"(?:is|are|was|were)\s+driving|caused?|factors?|impact(?:ed|s)?|"
    r"affect(?:ed|s)?|effects?|implications?|repercussions?|indicate|suggest|insights?|relate|relationship|"
    r"strateg(?:y|ies)|focus(?:ed|es)?|acquisitions?|divestitures?|mergers?|spin-?offs?|lawsuits?|litigation|"
    r"legal\s+(?:proceedings|battles|matters|actions?|issues)|operates?\s+in|priorit(?:y|ies|i[sz]ed)|initiatives?|"
    r"outcome|meaning|definition|discussion|discussed|expect(?:s|ed)?|forecasts?|guidance|outlook|"
    r"significant(?:ly)?|substantial(?:ly)?|notable|noteworthy|components?\s+of|made\s+up\s+of)\b"
    r"|\bwhat\s+(?:does|do|did|is|are)\s+(?:[\w'’-]+\s+){0,6}?(?:mean|stand\s+for|include|comprise|consist|represent|"
    r"cover|refer\s+to|relate\s+to|show|involve|reflect)\b|\bwhat\s+(?:is|are)\s+(?:included|excluded|meant)\b"
    r"|\bhow\s+(?:is|are|was|were)\s+(?:[\w,'’-]+\s+){0,6}?(?:determined|estimated|calculated|measured|defined|"
    r"recogni[sz]ed|treated|accounted|divided|handled|managed|presented|reported|disclosed|classified|allocated|"
    r"stated|carried|valued|attributed|assigned|apportioned|computed|derived|translated|amorti[sz]ed|depreciated|"
    r"assessed|evaluated|reviewed|tested|funded|financed|settled)\b"
    # ... and any other manner asked of a thing done to it, the question ending on the participle ("How is the
    # revenue diversified?"), unless the participle says how a figure moved ("How has revenue changed?")
    r"|^\s*how\s+(?:is|are|was|were|has|have|had)\s+(?:[\w,'’&.-]+\s+){1,8}?(?!(?:changed|increased|decreased|"
    r"grown|risen|fallen|declined|dropped|improved|moved|performed|trended|varied|fluctuated)\b)\w+(?:ed|en)\s*\??\s*$"
    # how someone acted or coped, not how much a figure moved: "How have inventory levels adapted to demand?"
    r"|\bhow\s+(?:has|have|had|did|does|do|is|are|was|were)\s+(?:[\w,'’-]+\s+){1,10}?(?:adapt|adjust|respond|react|"
    r"cope|coped|address|mitigat|handl|approach|position|prepar|navigat)\w*\b"
    r"|\bwhat\s+(?:is|are|was|were)\s+(?:the|our|its|their)\s+plans?\s+for\b"
    # the steps of a procedure ("What is the first step of the impairment test?", "the steps to apply for a grant")
    r"|\bsteps?\s+(?:of|in|to|for)\b"
    # how a practice is carried out, said in the active voice ("How does the company estimate the fair value?"),
    # and how often it is ("How often are the assumptions reviewed?": a practice, present tense; "how often did
    # ..." counts rows)
    r"|\bhow\s+(?:does|do)\s+(?:[\w,'’-]+\s+){1,6}?(?:define|estimate|calculate|determine|measure|recogni[sz]e|"
    r"account|treat|value|review|manage|test|assess|allocate|classify|present|report|disclose|amorti[sz]e)\b"
    r"|\bhow\s+often\s+(?:does|do|is|are)\b"
    # where a document states something, and when a rule applies ("When is goodwill considered impaired?")
    r"|\bwhere\s+(?:is|are|does|do)\s+(?:[\w,'’-]+\s+){1,8}?(?:defined|disclosed|reported|presented|included|"
    r"recorded|described|discussed|explained|filed|file|report|disclose|present|include)\b"
    r"|\bwhen\s+(?:is|are)\s+(?:[\w,'’-]+\s+){1,8}?(?:considered|deemed|required|necessary|tested|assessed|"
    r"reviewed|recogni[sz]ed|impaired|triggered|permitted|allowed)\b|\bconsidered\s+to\s+be\b"
    # the length of a defined period ("How long is the notice period?", "the useful life of buildings"): a
    # term a document states, not a figure computed over rows ("how long did repairs take on average")
    r"|\bhow\s+long\s+(?:is|are|was|were)\s+(?:the|a|an|its|their|our|your|(?:[\w.-]+\s+){0,2}[\w.-]+['’]s)\s+(?:[\w()'’-]+\s+){0,6}?"
    r"(?:period|term|life|lives|duration|window|tenure)s?\b"
    r"|\bover\s+what\s+(?:period|duration|term|time|timeframe|time\s+frame|horizon)\b"
    # a definition: "What are OEM?", "What is a distribution customer?" (no determiner of a figure: "What is the total?")
    r"|^\s*what\s+(?:is|are)\s+(?:an?\s+)?(?!(?:the|our|your|its|their|this|that|these|those)\b|.*['’]s\b)"
    r"[\w&.'’-]+(?:\s+[\w&.'’-]+){0,2}\s*\?\s*$",
    re.I)
_POLICY = re.compile(
    r"\b(?:polic(?:y|ies)|rules?|procedures?|guidelines?|regulations?|allowed|permitted|eligible|entitled|"
    r"approv(?:e|al|als|ing)\s+(?:limits?|process|thresholds?|rules?)|requirements?|"
    r"(?:am|are|is)\s+(?:i|we|staff|employees)\s+(?:allowed|required|permitted)|what\s+happens\s+(?:if|when)|"
    r"how\s+(?:do|can|should|must)\s+(?:i|we|you)\b|do\s+(?:i|we)\s+need\s+to|"
    r"what\s+(?:should|must|do|can)\s+(?:i|we|you)\s+do|"
    # an obligation: "How quickly do we have to fix an urgent repair?", "How soon must a claim be made?"
    r"(?:do|does)\s+(?:[\w'’-]+\s+){1,3}?(?:have|need)\s+to|(?:must|shall)\s+(?:i|we|you|they|an?|the)|"
    r"how\s+(?:quickly|soon|fast)\s+(?:must|should|shall)|"
    # when something is done as a rule or a routine: "When do juniors train?", "When does the office open?"
    r"^\s*when\s+(?:do|does)\s)\b",
    re.I)
# What a meeting or a body decided is minuted prose, whatever figure it names ("What rent increase did the board
# approve for 2025/26?", "What did the committee agree about the fees?"); how many things it approved is a count.
_DECISION = re.compile(
    r"\b(?:did|does|do|has|have|had|will)\s+(?:the\s+|our\s+|its\s+|their\s+)?(?:[\w'’-]+\s+){0,3}?"
    r"(?:board|committee|council|trustees?|directors?|governors?|panel|cabinet|executive|shareholders?|members|"
    r"meeting|chair|chairman|chairwoman|chairperson)\s+(?:formally\s+|finally\s+|unanimously\s+)?"
    r"(?:approve|agree|decide|resolve|propose|recommend|adopt|reject|endorse|vote|sign\s+off|ratify|authori[sz]e)\b",
    re.I)
_COUNTED = re.compile(r"\bhow\s+many\b|\bnumber\s+of\b|^\s*(?:list|show)\b", re.I)
# How long one event went on ("How long did the Leeds network outage last?"): a time a document states. A log's times
# are asked over rows ("on average", "in total", "the longest": computed) or of a record its code names ("KD-104").
_EVENT_DURATION = re.compile(r"\bhow\s+long\s+(?:did|does|will|would|has|had)\s+(?:the|that|this|our|its|their)\s+"
                             r"(?:[\w'’-]+\s+){0,5}?[\w'’-]*[^s\W]\s+(?:last|take|run|go\s+on)\b", re.I)
_OVER_ROWS = re.compile(r"\d|\b(?:slowest|quickest|fastest|longest|shortest|earliest|latest|first|typical|usual|average|"
                        r"median|each|every)\b", re.I)
# A yes/no question (`asks_yes_or_no`) about what happened or what is so, with no computation or condition in
# it, is for prose ("Did the board approve the merger?", "Is the warranty transferable?"); one that compares
# figures is answered from them: "Were more episodes aired in 1967 or 1968?",
# "Did Ines claim more than Owen?", "Did the Leeds or the York shop have the bigger takings?"
# The sign of a named balance is a comparison with zero ("Did the bar have positive cash flow in 2024?"); "positive
# feedback" names no balance.
_COMPARATIVE = re.compile(r"\b(?:more|less|fewer|greater|bigger|smaller|higher|lower|larger|longer|shorter|older|"
                          r"younger|heavier|lighter|cheaper|dearer|faster|slower)\b"
                          r"|\b(?:positive|negative)\s+(?:[\w-]+\s+){0,2}?(?:balances?|income|earnings|profits?|margins?|"
                          r"capital|cash(?:\s+flows?)?|equity|returns?|growth|results?|reserves?)\b", re.I)

# Computations over rows. "Most recent" and "latest" pick a document, not a row.
# "The number of orders" counts; "the phone number of support" names an identifier, so "number of"
# counts only at the start or after a word that makes it a quantity.
_COUNT_OF = (r"(?:(?<![\w-])(?<![\w-]\s)|(?<=\bthe\s)|(?<=\ba\s)|(?<=\btotal\s)|(?<=\boverall\s)|(?<=\baverage\s)|"
             r"(?<=\bcombined\s)|(?<=\bsame\s)|(?<=\bexact\s))number\s+of")
_AGGREGATE = re.compile(
    r"\b(?:how\s+many|how\s+much|how\s+often\s+(?:did|was|were|has|have)|" + _COUNT_OF + r"|count(?:ed|s)?|totals?|totall?ed|sum(?:med)?|average|avg|mean|median|"
    r"minimum|maximum|min|max|most(?!\s+recent)|least|fewest|highest|lowest|largest|smallest|biggest|longest|"
    r"shortest|cheapest|best|worst|top\s+(?:\d+|three|five|ten)|bottom\s+\d+|rank(?:ed|ing)?|"
    r"altogether|all\s+told|in\s+all|combined|percent(?:age)?|ratio|proportion|share\s+of|difference|change|"
    r"increase|decrease|growth|grew|rose|fell|declined?|drop|improv(?:e|ed|ing)|compare[sd]?|trend(?:ed|s)?|"
    r"per|each|every|break\s+(?:\w+\s+)?down)\b",
    re.I)
_CONDITION = re.compile(
    r"\b(?:more|less|fewer|greater|bigger|smaller|longer|shorter|higher|lower|larger|wider|narrower|heavier|lighter)"
    r"\s+than\b|\b(?:over|under|above|below|at\s+least|at\s+most|no\s+more\s+than|between)\s+[£$€]?\d|"
    r"\bbetween\s+\S+\s+and\b",
    re.I)
# Rows asked for ("list…", "which receipts include…", "the first…"), and a reported figure or a
# field of a record for a period or a named record ("What was the gross margin in Q3 2023?",
# "the Orlen invoice's due date").
_LISTING = re.compile(
    r"^\s*(?:list|show|find|name)\b|\b(?:first|last|earliest|oldest|newest|youngest)\b(?!\s+(?:steps?|stages?|phases?)\b)"
    r"|\bwhich\s+(?:\w+\s+){1,3}?(?:have|has|had|were|was|are|is|did|do|does|with|from|over|under|above|below|"
    r"include[sd]?|contain(?:s|ed)?)\b",
    re.I)
_FIGURE = re.compile(
    r"\b(?:what|when|who)\s+(?:is|was|were|are)\s+(?:the\s+)?(?:[\w&'’/.-]+\s+){0,8}?"
    rf"(?:in|for|of|at|on|as\s+of|during)\s+(?:(?:the\s+)?(?:{FISCAL_YEAR}|{QUARTER_SHORT}\s?)?{YEAR_DIGITS}\b|"
    r"(?:the\s+)?[\w&'’ -]{1,40}\b(?:invoice|receipt|order|bill|statement|sheet|table|register|log|list))"
    r"|\b(?:invoice|receipt|order)\s+(?:number|date|total|amount)\b|\bdue\s+date\b|\b(?:dated|due)\b",
    re.I)
# Asking for a count or for rows outright: no explanation beside it makes it a prose question.
_COUNT_OR_ROWS = re.compile(r"\b(?:how\s+many|how\s+much|" + _COUNT_OF + r")\b|^\s*(?:list|show)\b", re.I)


@dataclass(frozen=True)
class Kind:
    """What the question asks for; `sure` is False when the rules could not tell (see `by`)."""
    kind: str
    sure: bool
    by: str  # "rules" | "model" | "default"
    reason: str
    records_words: bool = False  # words of a computation or of rows were seen, sure or not ("each", "total")

    @property
    def said(self) -> bool:
        """Something in the question (or the model) says what it asks for: not only the rules' default."""
        return self.sure or self.records_words


def _computed(question: str) -> str:
    return _found(_AGGREGATE, question) or _found(_CONDITION, question)


def _found(pattern: re.Pattern, question: str) -> str:
    match = pattern.search(question)
    return " ".join(match.group(0).split()).lower() if match else ""


# A later sentence that starts "If…" and is not itself a question says how to answer in a case ("If
# the ratio is not relevant, state that and explain why."): it is not what the question asks for.
_CONDITIONAL_INSTRUCTION = re.compile(r"(?<=[?.!])\s+If\b[^?.!]*(?:[.!]|$)", re.I)


# A yes/no on what kind of organisation something is ("Are the firm's 2022 results those of a high-growth
# company?", "Is the club a registered charity?") asks for an assessment, whatever figure words it holds.
_CHARACTERISED = re.compile(
    r"^\s*(?:is|are|was|were)\s+(?!there\b).{1,80}?\b((?:an?|th(?:at|ose)\s+of\s+an?)\s+(?:[\w-]+\s+){0,3}?"
    r"(?:company|companies|business|firm|enterprise|organi[sz]ation|charity|employer|lender|borrower))\b", re.I)
# What someone may or must do, asked of a person ("Can we take dented tins?", "How much can drivers claim for
# mileage?", "How many days may staff carry over?"): a rule states it, whatever figure words it holds. Asked of the
# assistant ("Can you list ...", "Can I see the totals?") it is a request, and asked of a thing ("How many
# parcels can the van carry?") a capacity.
# (one person of a role too: "Can a vet prescribe ...", "Can the manager approve ...", by an agent's ending, but not
# a word of that ending that names no one: "Can any other costs ...", "Can any consistent trends ...")
_AGENT = (r"(?!(?:other|either|neither|never|after|under|over|later|further|number|order|register|meter|matter|water|"
          r"paper|letter|power|offer|cover)\b)[\w-]{3,}(?:er|or|ee|ian|ist)")
_PERSON = (r"(?:i|we|staff|employees|members|people|anyone|someone|one|they|vets?|nurses?|guests?|pupils?|children|child|"
           r"tenants?|landlords?|users?|students?|parents?|clients?|patients?|residents?|customers?|"
           r"[\w-]+(?:ers|ees|ents|ors|ians)|" + _AGENT + ")")
_NOT_A_PERMISSION = r"(?!(?:see|get|have|view|list|show|find|know|export|download|check|look|count|total|sum)\b)"
_PERMISSION = re.compile(
    r"^\s*(?:can|may|could|should|must)\s+(?:[\w-]+\s+)?" + _PERSON + r"\s+" + _NOT_A_PERMISSION + r"[a-z]"
    r"|\bhow\s+(?:much|many|long|often|far|soon)\s+(?:[\w'’-]+\s+){0,3}?(?:can|may|should|must)\s+(?:[\w-]+\s+)?"
    + _PERSON + r"\s+" + _NOT_A_PERMISSION + r"[a-z]", re.I)
# The things a document singles out as the main ones ("What are the major acquisitions X made in FY2022?", "the two
# main currencies involved", "the geographies X primarily operates in"): prose names them, whatever year or record
# words stand beside. A ranking says its measure ("the main customers by sales", "the most ...").
_PROMINENT = re.compile(
    r"^\s*(?:what|which)\s+(?:are|were)\s+(?:the\s+)?(?:[\w&.'’-]+['’]s?\s+)?(?:(?:two|three|four|five|\d+)\s+)?"
    r"(?:major|main|primary|principal|key|core|chief)\s+[\w-]+s\b(?!.*\bby\s+\w+\s*\??\s*$)"
    r"|(?<!\bwe\s)(?<!\bi\s)\b(?:primarily|principally|predominantly)\s+(?:operat|sell|sold|serv|focus|engag|mak|produc|manufactur|"
    r"compet|generat|earn|invest)\w*", re.I)
# A term in double quotes is a name the question asks about, not its words: "per" in "Earnings per share" asks for
# no figure per group.
_QUOTED_TERM = re.compile(r'["“][^"“”]{1,80}["”]')


# A second question joined on ("..., and what was the focus of this spending?"): a figure asked for with what
# explains it is a question for the prose around the figure.
_SECOND_QUESTION = re.compile(r"[,;]\s*and\s+((?:what|which|how|why|who|where|when)\b.*)$", re.I)


def by_rules(question: str, default: str = RECORDS) -> Kind:
    """The kind the rules are sure of, or `default` marked unsure. A summary request wins unless a
    computation is asked for beside it; a reason asked for outright wins unless a count or rows are;
    otherwise words of one kind decide, and words of two kinds leave the question unsure."""
    question = _QUOTED_TERM.sub("NAME", _CONDITIONAL_INSTRUCTION.sub(" ", question))
    summary = _found(_SUMMARY, question)
    reason = _found(_REASON, question) or _found(_COMPLEMENT, question)
    prose = reason or _found(_EXPLANATION, question) or _found(_POLICY, question)
    computed = _computed(question)
    records = computed or _found(_FIGURE, question) or _found(_LISTING, question)
    second = _SECOND_QUESTION.search(question)
    explained = second and not summary and (_found(_REASON, second.group(1)) or _found(_EXPLANATION, second.group(1)))
    if explained:
        return Kind(TEXT, True, "rules", f"a figure with what explains it: “{explained}”")
    if summary and not computed:
        return Kind(SUMMARY, True, "rules", f"a summary: “{summary}”")
    if (permission := _found(_PERMISSION, question)) and not re.match(r"\s*(?:list|show)\b", question, re.I):
        return Kind(TEXT, True, "rules", f"what someone may or must do: “{permission}”")
    if (decision := _found(_DECISION, question)) and not _COUNTED.search(question):
        return Kind(TEXT, True, "rules", f"what a meeting decided: “{decision}”")
    if (event := _found(_EVENT_DURATION, question)) and not computed and not _OVER_ROWS.search(question):
        return Kind(TEXT, True, "rules", f"how long one event went on: “{event}”")
    if (main := _found(_PROMINENT, question)) and not computed:
        return Kind(TEXT, True, "rules", f"what the documents single out: “{main}”")
    if ((character := _CHARACTERISED.search(question)) and not _computed(question[:character.start(1)])
            and not _found(_COMPARATIVE, question)):
        return Kind(TEXT, True, "rules", f"an assessment of what something is: “{' '.join(character.group(0).lower().split())}”")
    if reason and not summary and not _COUNT_OR_ROWS.search(question):
        return Kind(TEXT, True, "rules", f"a reason: “{reason}”")
    if prose and not records and not summary:
        return Kind(TEXT, True, "rules", f"an explanation or rule: “{prose}”")
    if records and not prose and not summary:
        return Kind(RECORDS, True, "rules", f"figures or rows: “{records}”")
    yes_no = asks_yes_or_no(question)
    if yes_no and not summary and (compared := _found(_COMPARATIVE, question)) and not reason:
        return Kind(RECORDS, True, "rules", f"a yes/no that compares figures: “{compared}”")
    if yes_no and not (summary or prose or records):
        return Kind(TEXT, True, "rules", "a yes/no question with no figure or condition")
    # an expectation, an assessment or an event asked about with a figure's words ("Is growth in EPS expected to
    # accelerate?", "Has there been any significant change in expenses?"): prose says whether, not a query
    if yes_no and prose and not (summary or _COUNT_OR_ROWS.search(question) or _found(_CONDITION, question)):
        return Kind(TEXT, True, "rules", f"a yes/no about an expectation or assessment: “{prose}”")
    seen = "; ".join(f"“{w}”" for w in (summary, prose, records) if w)
    why = f"words of more than one kind ({seen})" if seen else "no words that say what it asks for"
    return Kind(default, False, "default", f"rules unsure: {why}", records_words=bool(records))


# Short on purpose: the model reads about 36 tokens a second, and this runs before every unsure
# question about a table. The three definitions are the module's, in as few words.
PROMPT = ("What does the question ask for? records: a count, sum, average, min/max, a list or ranking of rows "
          "matching conditions, a figure per group, or one value of a record or table. text: a fact, rule, "
          "policy or explanation written in prose. summary: a summary, main points, gist or overview.\n"
          "Question: {question}")


def by_model(question: str, llm, max_tokens: int, unsure: Kind) -> Kind:
    """One constrained call; a failed call keeps the rules' default, saying so."""
    kind = llm.judge(PROMPT.format(question=question.strip()), "kind", {"type": "string", "enum": list(KINDS)},
                      max_tokens=max_tokens)
    if kind not in KINDS:
        return Kind(unsure.kind, False, "default", f"{unsure.reason}; the model could not decide",
                    records_words=unsure.records_words)
    return Kind(kind, True, "model", f"{unsure.reason}; the model read it as {kind}")


def classify(question: str, *, table_selected: bool, llm=None,
             max_tokens: int = Settings.route_kind_max_tokens, names_rows: bool = False) -> Kind:
    """The kind, asking `llm` only when the rules are unsure and a table was selected (without a
    table every kind goes to the text route, so the call would change nothing). Unsure and
    unasked: records where a table was selected (it names the table), else text. `names_rows`: the
    question names rows of the selected table as only the table can answer (the row listed after one,
    the larger of two: core.annotations.named_rows), so it is records without asking."""
    default = RECORDS if table_selected else TEXT
    kind = by_rules(question, default)
    if not kind.sure and table_selected and names_rows:
        return Kind(RECORDS, True, "rules", "names rows of the table: the one beside a named row, or the larger of two")
    if kind.sure or not table_selected or llm is None:
        return kind
    return by_model(question, llm, max_tokens, kind)
