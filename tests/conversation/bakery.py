"""A bakery chain's sales per shop, and a conversation about it: each follow-up as typed and the
standalone question it must be understood as. Shared by the CLI, Workspace and Chat page tests."""
from __future__ import annotations

import json
import re

from core.llm.scripted import ScriptedLLM, extractive_answer

SHOPS = ["Millbrook", "Ashgate", "Fernley Green", "Kingsmoor"]
PRODUCTS = ["Sourdough", "Rye bread", "Croissants"]
SALES_CSV = "Shop,Product,Month,Units,Sales (GBP)\n" + "\n".join(
    f"{shop},{product},{year}-{month:02d},{40 + 7 * s + 3 * p + month},{(40 + 7 * s + 3 * p + month) * 3.5:.2f}"
    for s, shop in enumerate(SHOPS) for p, product in enumerate(PRODUCTS)
    for year in (2023, 2024) for month in (3, 9)) + "\n"



def stored_columns(texts: list[str]) -> dict[str, set[str]]:
    """Which column of the sales table holds each text, as the knowledge base answers (core.store.facts)."""
    columns = {**{shop.lower(): {"shop"} for shop in SHOPS}, **{product.lower(): {"product"} for product in PRODUCTS}}
    return {t: columns[t] for t in texts if t in columns}


FIRST = "What were Millbrook's sourdough sales in 2024?"
# (as typed, understood as): a shop for a shop, a year for a year, a product for a product (the
# tables hold each in its column), an aggregate for whose figure it is (rules), then a question the
# rules do not parse (the model's rewrite, checked by code).
FOLLOW_UPS = [
    ("What about Fernley Green?", "What were Fernley Green's sourdough sales in 2024?"),
    ("and in 2023?", "What were Fernley Green's sourdough sales in 2023?"),
    ("And rye bread?", "What were Fernley Green's rye bread sales in 2023?"),
    ("and the average?", "What were Fernley Green's average rye bread sales in 2023?"),
    ("And how did Kingsmoor do?", "What were Kingsmoor's average rye bread sales in 2023?"),
]
_REWRITES = {(FOLLOW_UPS[3][1], FOLLOW_UPS[4][0]): FOLLOW_UPS[4][1]}
_ASKED = re.compile(r"Previous question: (?P<previous>.+)\nFollow-up question: (?P<question>.+)")


def rewriting_model() -> ScriptedLLM:
    """A model stand-in that rewrites the follow-ups no rule parses as a model would, and otherwise
    answers extractively (or, asked for anything else as JSON, says nothing usable)."""
    def reply(messages) -> str:
        asked = _ASKED.search(messages[-1]["content"])
        if asked:
            return json.dumps({"standalone_question": _REWRITES[(asked["previous"], asked["question"])]})
        return extractive_answer(messages)

    return ScriptedLLM(reply)
