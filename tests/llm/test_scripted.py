"""The scripted stand-in: plays its replies, and at a set pace writes them word by word as a model does."""
import time

from core.config import Settings
from core.llm import make_llm
from core.llm.scripted import ScriptedLLM


def test_it_plays_its_replies_in_order_and_streams_each_word():
    llm = ScriptedLLM(["first reply", "second"])
    words: list[str] = []
    assert llm.stream([{"role": "user", "content": "q"}], words.append).text == "first reply"
    assert words == ["first", " reply"]
    assert llm.complete([{"role": "user", "content": "q"}]).text == "second"


def test_at_a_set_pace_the_words_arrive_one_after_another():
    llm = ScriptedLLM(["one two three four five"], words_per_second=50)
    arrivals: list[float] = []
    started = time.perf_counter()
    llm.stream([{"role": "user", "content": "q"}], lambda _: arrivals.append(time.perf_counter() - started))
    assert len(arrivals) == 5
    assert arrivals[-1] >= 5 / 50 * 0.9  # five words at 50 a second: at least ~0.1 s, not all at once


def test_the_setting_sets_the_app_s_scripted_pace():
    assert make_llm(Settings(llm_provider="scripted", scripted_words_per_second=12)).words_per_second == 12
    assert make_llm(Settings(llm_provider="scripted")).words_per_second == 0  # by default, all at once
