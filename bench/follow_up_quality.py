"""Follow-ups made standalone: how many the rules rewrite, and what the model's rewrites are worth once
code has checked them. Own cases in three domains nobody wrote the rules on (a bakery chain's sales, a
hotel group's bookings, a ferry operator's crossings) and two text-only ones; no public question.

    flock /tmp/docuchat-model.lock .venv/bin/python bench/follow_up_quality.py [--provider embedded]

A rewrite is right when it says every term the case must keep or add and none it must drop. Each case
is resolved as the Planner resolves it (core.conversation.resolve_follow_up, with the case's stored
values as the knowledge base would give them), so a model rewrite that loses a condition is "asked back".
"""
from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import table  # noqa: E402
from core.conversation import resolve_follow_up  # noqa: E402
from core.conversation.conditions import mentions  # noqa: E402

BAKERY = {"millbrook": {"shop"}, "ashgate": {"shop"}, "fernley green": {"shop"}, "kingsmoor": {"shop"},
          "sourdough": {"product"}, "rye bread": {"product"}, "croissants": {"product"}}
HOTELS = {"harbour view": {"property"}, "old mill lodge": {"property"}, "castle yard": {"property"},
          "double": {"room type"}, "family suite": {"room type"}, "priya natarajan": {"guest"}}
FERRIES = {"mv solan": {"vessel"}, "mv tern": {"vessel"}, "cancelled": {"status"}, "delayed": {"status"}}


@dataclass
class Case:
    previous: str
    follow_up: str
    keep: tuple[str, ...]  # terms the rewrite must say
    drop: tuple[str, ...] = ()  # terms it must not (what the user replaced)
    stored: dict | None = None  # the knowledge base's text cells and their columns


CASES = [
    Case("What were Millbrook's sourdough sales in 2024?", "What about Fernley Green?",
         ("Fernley Green", "sourdough", "sales", "2024"), ("Millbrook",), BAKERY),
    Case("What were Millbrook's sourdough sales in 2024?", "and in 2023?",
         ("Millbrook", "sourdough", "sales", "2023"), ("2024",), BAKERY),
    Case("What were Millbrook's sourdough sales in 2024?", "and rye bread?",
         ("Millbrook", "rye bread", "sales", "2024"), ("sourdough",), BAKERY),
    Case("What were Millbrook's sourdough sales in 2024?", "and the average?",
         ("Millbrook", "sourdough", "sales", "2024", "average"), (), BAKERY),
    Case("What did Ashgate take in croissant sales in the first quarter of 2024?", "and Kingsmoor?",
         ("Kingsmoor", "croissant", "first quarter", "2024"), ("Ashgate",), BAKERY),
    Case("How many nights were booked at Harbour View in August 2024?", "What about Castle Yard?",
         ("Castle Yard", "nights", "August", "2024"), ("Harbour View",), HOTELS),
    Case("How many nights were booked at Harbour View in August 2024?", "and in September?",
         ("Harbour View", "nights", "September", "2024"), ("August",), HOTELS),
    Case("Which guests stayed more than 5 nights at Old Mill Lodge in 2024?", "and at Castle Yard?",
         ("guests", "5", "nights", "Castle Yard", "2024"), ("Old Mill Lodge",), HOTELS),
    Case("What was the total revenue from family suites at Harbour View in 2024?", "and the average?",
         ("average", "revenue", "family suite", "Harbour View", "2024"), ("total",), HOTELS),
    Case("How many bookings did Priya Natarajan make at Castle Yard in 2023?", "And Harbour View?",
         ("Priya Natarajan", "bookings", "Harbour View", "2023"), ("Castle Yard",), HOTELS),
    Case("How many bookings did Priya Natarajan make at Castle Yard in 2023?", "And Harbour View?",
         ("Priya Natarajan", "bookings", "Harbour View", "2023"), ("Castle Yard",), None),
    Case("How many passengers did MV Solan carry in Q2 2024?", "and MV Tern?",
         ("MV Tern", "passengers", "Q2", "2024"), ("MV Solan",), FERRIES),
    Case("How many passengers did MV Solan carry in Q2 2024?", "and Q3?",
         ("MV Solan", "passengers", "Q3", "2024"), ("Q2",), FERRIES),
    Case("What was the busiest day for MV Tern in 2024?", "how about the quietest?",
         ("quietest", "day", "MV Tern", "2024"), ("busiest",), FERRIES),
    Case("Which crossings by MV Solan were cancelled in March 2024?", "and the ones that were delayed?",
         ("crossings", "MV Solan", "delayed", "March", "2024"), ("cancelled",), FERRIES),
    Case("What was Northwind's operating margin in FY2023?", "And Contoso?",
         ("Contoso", "operating margin", "FY2023"), ("Northwind",)),
    Case("When does the warranty for the Voltra X2 heat pump expire?", "what about the Voltra X3?",
         ("Voltra X3", "warranty", "heat pump"), ("Voltra X2",)),
]


def right(case: Case, rewrite: str) -> bool:
    return all(mentions(rewrite, t) for t in case.keep) and not any(mentions(rewrite, t) for t in case.drop)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--provider", default="embedded", help="the LLM provider for the model's rewrites")
    args = parser.parse_args()
    from core.config import load_settings
    from core.llm import make_llm

    settings = load_settings(data_dir=Path("bench/results/follow-up-unused")).replace(llm_provider=args.provider)
    llm = make_llm(settings)
    rows, outcomes = [], {}
    for case in CASES:
        stored = case.stored
        started = time.perf_counter()
        resolution = resolve_follow_up(case.follow_up, case.previous, llm, settings.standalone_max_tokens,
                                       (lambda texts, s=stored: {t: s[t] for t in texts if t in s}) if stored else None)
        seconds = time.perf_counter() - started
        outcome = ("asked back" if resolution.unclear else "kept as typed" if not resolution.by else
                   f"{resolution.by}: {'right' if right(case, resolution.question) else 'WRONG'}")
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
        shown = resolution.note if resolution.unclear else resolution.question
        rows.append([f"{case.follow_up} ({'stored values' if stored else 'text only'})", outcome, f"{seconds:.1f}",
                     shown[:90]])
    print(table(["follow-up", "outcome", "s", "understood as / why not"], rows,
                title=f"Follow-ups made standalone ({len(CASES)} cases, model: {llm.name})"))
    print("\n" + ", ".join(f"{k}: {v}" for k, v in sorted(outcomes.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
