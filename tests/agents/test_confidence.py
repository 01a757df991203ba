"""One confidence policy: checks return findings, `settle` turns them into a level and the flags shown."""
from core.agents.confidence import HIGH, LOW, MEDIUM, Effect, Finding, settle
from core.safety.flags import Flag


def test_no_findings_keep_the_level_the_similarity_rule_gave():
    assert settle(HIGH, []) == (HIGH, [])


def test_a_failed_check_lowers_one_level_and_never_below_low():
    missing = Finding(Flag.NO_CITATION, Effect.LOWER)
    assert settle(HIGH, [missing]) == (MEDIUM, [Flag.NO_CITATION])
    assert settle(LOW, [missing])[0] == LOW


def test_a_flag_for_the_reader_alone_moves_nothing():
    assert settle(HIGH, [Finding(Flag.INJECTION_IN_CONTEXT)]) == (HIGH, [Flag.INJECTION_IN_CONTEXT])


def test_a_cap_and_a_floor_bound_the_level_without_moving_it_past_them():
    assert settle(HIGH, [Finding(Flag.NEAR_QUOTE, Effect.AT_MOST_MEDIUM)])[0] == MEDIUM
    assert settle(LOW, [Finding(Flag.NEAR_QUOTE, Effect.AT_MOST_MEDIUM)])[0] == LOW
    assert settle(LOW, [Finding(None, Effect.AT_LEAST_MEDIUM)])[0] == MEDIUM
    assert settle(HIGH, [Finding(None, Effect.AT_LEAST_MEDIUM)])[0] == HIGH


def test_findings_apply_in_the_order_the_checks_ran():
    # A quote found word for word lifts a low similarity to medium; a misreading found after it makes it low.
    found, misread = Finding(None, Effect.AT_LEAST_MEDIUM), Finding(Flag.POSSIBLE_MISREAD, Effect.LOW)
    assert settle(LOW, [found, misread]) == (LOW, [Flag.POSSIBLE_MISREAD])
    # An exact count over stored records decides its own level; a missing citation after it still lowers it.
    exact = Finding(None, Effect.SET, HIGH)
    assert settle(LOW, [misread, exact])[0] == HIGH
    assert settle(LOW, [exact, Finding(Flag.NO_CITATION, Effect.LOWER)])[0] == MEDIUM


def test_a_flag_raised_by_two_checks_is_shown_once_in_the_order_first_raised():
    findings = [Finding(Flag.UNSUPPORTED_CLAIMS, Effect.LOWER), Finding(Flag.NO_CITATION, Effect.LOWER),
                Finding(Flag.UNSUPPORTED_CLAIMS, Effect.LOWER)]
    assert settle(HIGH, findings) == (LOW, [Flag.UNSUPPORTED_CLAIMS, Flag.NO_CITATION])
