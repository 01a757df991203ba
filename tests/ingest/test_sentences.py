"""A sentence ends at a full stop before the next word, but not after an abbreviation."""
import re

import pytest

from core.ingest.sentences import ends_with_abbreviation, split_sentences

BOUNDARY = re.compile(r"(?<=[.!?])\s+(?=\S)")


def test_sentences_go_on_past_abbreviations():
    text = "Profit fell because of the U.S. Tax Act. Dr. Mensah saw 4 patients, e.g. Mr. Ito. It rained."
    assert split_sentences(text, BOUNDARY) == [
        "Profit fell because of the U.S. Tax Act.", "Dr. Mensah saw 4 patients, e.g. Mr. Ito.", "It rained."]


@pytest.mark.parametrize("text, expected", [
    ("the effects of the U.S.", True), ("signed by Ms.", True), ("Acme Inc.", True), ("see Fig.", True),
    ("The plan ended.", False), ("He left the U.K", False), ("and so on, etc.", False), ("It was approved on 4 Mar", False),
])
def test_an_abbreviation_is_letters_with_stops_or_a_title_word(text, expected):
    assert ends_with_abbreviation(text) is expected
