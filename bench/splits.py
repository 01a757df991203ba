"""The one dev/test split of every public evaluation set, fixed once (seed below).

Defaults, thresholds and prompts are tuned on `dev`; figures are reported on `test`. The split is
by a hash of each item's stable key (question id, or the question text where a set has no id), so
it does not depend on file order and never changes when a script filters or samples the set.
Never copy a `test` question or its gold value into a test, a rule or a prompt.
"""
from __future__ import annotations

import hashlib

SEED = "docuchat-2026-11-23"
DEV, TEST = "dev", "test"
DEV_PERCENT = 50


def part_of(key: str) -> str:
    """'dev' or 'test' for an item's stable key."""
    digest = hashlib.sha256(f"{SEED}:{key}".encode()).digest()
    return DEV if int.from_bytes(digest[:4], "big") % 100 < DEV_PERCENT else TEST


def keep(items, key, part: str | None):
    """The items of one part (`None` or 'all' keeps everything); `key(item)` gives the stable key."""
    if part in (None, "all"):
        return list(items)
    if part not in (DEV, TEST):
        raise ValueError(f"part must be dev, test or all, not {part!r}")
    return [item for item in items if part_of(key(item)) == part]


def add_argument(parser, default: str = TEST) -> None:
    """The --part option every public-set benchmark takes."""
    parser.add_argument(
        "--part", choices=[DEV, TEST, "all"], default=default,
        help="which part of the fixed dev/test split of the public set to run (tune on dev, report test)",
    )
