"""The judges' shared tools (attention_lab.judging): what a student reads when a design or debug answer is
checked. Every expected message and verdict is written here by hand, not produced by the code under test."""

import numpy as np

from attention_lab import judging


def test_as_numbers_says_what_was_expected_and_what_it_got():
    assert judging.as_numbers([[1, 2, 3]], (2,), "a row") == \
        "expected a row of shape (2,), got a 1 × 3 array."
    assert judging.as_numbers([1.0, np.nan], (2,), "a row") == \
        "expected a row of shape (2,): yours has that shape, but contains NaN or inf. Use finite numbers."
    assert judging.as_numbers([1.0, -2e12], (2,), "a row") == \
        "expected a row of shape (2,): yours has that shape, but holds 2e+12; keep every number within " \
        "±1e+12 (larger ones overflow when the check multiplies them)."
    np.testing.assert_array_equal(judging.as_numbers([1, -1e12], (2,), "a row"), [1.0, -1e12])
    assert judging.as_numbers(np.ones((3, 2)), (2, 3), "a W") == \
        "expected a W of shape (2, 3), got a 3 × 2 array (transposed?)."


def test_as_numbers_takes_a_row_or_a_column_when_flat():
    np.testing.assert_array_equal(judging.as_numbers([[1, 2]], (2,), "a row", flat=True), [1.0, 2.0])
    np.testing.assert_array_equal(judging.as_numbers([[1], [2]], (2,), "a row", flat=True), [1.0, 2.0])
    assert judging.as_numbers([[1, 2], [3, 4]], (4,), "a row", flat=True) == \
        "expected a row of shape (4,), got a 2 × 2 array."
    assert judging.as_numbers([[1, 2]], (2,), "a row") == \
        "expected a row of shape (2,), got a 1 × 2 array."
    assert judging.as_numbers([1, 2, 3], (2,), "a row", flat=True) == \
        "expected a row of shape (2,), got a list of 3 numbers."
    assert judging.as_numbers(np.zeros((0, 2)), (0, 2), "no rows").shape == (0, 2)   # none too large


def test_run_student_says_what_went_wrong():
    import warnings

    import attention_lab as al
    assert judging.run_student(int, 1) == "expected your fixed function itself (no brackets), got type."
    assert judging.run_student(np.zeros(2), 1) == \
        "expected your fixed function itself (no brackets), got ndarray."
    assert judging.run_student(lambda x: None, 1) == "your function returns None: does it end with `return`?"
    assert judging.run_student(lambda x: "0.5", 1) == \
        "your function returns text, '0.5': give numbers, without quotes."
    assert judging.run_student(lambda x: 1 / x, 0) == \
        "your function raised ZeroDivisionError: division by zero"
    assert judging.run_student(lambda s: al.softmax(s), np.zeros(2), locked=("softmax",)) == \
        "al.softmax is switched off in this exercise: do this step yourself (the check switches it off " \
        "while it runs your function)."
    np.testing.assert_array_equal(judging.run_student(lambda s: al.softmax(s), np.zeros(2)), [0.5, 0.5])
    with warnings.catch_warnings():
        warnings.simplefilter("error")                        # a warning would be a failure of the student's
        np.testing.assert_array_equal(judging.run_student(lambda x: x / 0, np.ones(2)), [np.inf, np.inf])


def test_run_student_calls_on_copies_and_passes_numbers_as_they_are():
    X = np.array([1.0, 2.0])

    def doubles_in_place(x, times):
        x *= times
        return x

    np.testing.assert_array_equal(judging.run_student(doubles_in_place, X, 2), [2.0, 4.0])
    np.testing.assert_array_equal(X, [1.0, 2.0])                                  # the judge's input kept
    assert judging.run_student(lambda h: np.array([type(h) is int]), 2)[0] == 1.0   # an int stays an int


def test_same_numbers_asks_for_an_array_of_the_shape_and_allclose():
    assert judging.same_numbers(np.array([1.0 + 1e-6, np.nan]), [1.0, np.nan])   # rtol 1e-5; nan = nan
    assert not judging.same_numbers(np.array([1.0001]), [1.0])
    assert not judging.same_numbers([1.0], [1.0])                                   # a list is no result
    assert not judging.same_numbers(np.array([1.0]), [1.0, 1.0])                    # not the shape


def test_outcome_of_names_the_error_a_version_raises():
    assert judging.outcome_of(lambda s: s[5], (np.zeros(2),)) == "raised IndexError"
    np.testing.assert_array_equal(judging.outcome_of(lambda s: [s, 2 * s], (1,)), [1.0, 2.0])
    X = np.ones(2)
    judging.outcome_of(lambda x: x.fill(7), (X,))
    np.testing.assert_array_equal(X, [1.0, 1.0])                                   # run on a copy


def test_still_planted_reads_the_functions_own_lines():
    def handed_out(s):
        w = np.exp(s)   # the planted line: no shift by the maximum # (and a second mark)
        return w / w.sum()

    assert judging.still_planted(handed_out, "w = np.exp(s)")
    assert judging.still_planted(handed_out, "w=np.exp( s )")                    # spaces aside
    assert not judging.still_planted(handed_out, "w = np.exp(s - s.max())")
    made = {"np": np}
    exec("def handed_out(s):\n    w = np.exp(s)\n    return w / w.sum()\n", made)
    assert not judging.still_planted(made["handed_out"], "w = np.exp(s)")          # no source to read


def test_what_differs_says_near_but_not_equal_or_counts_by_the_test_that_refused():
    ref = np.array([0.5, 0.25])
    assert judging.what_differs(np.array([0.501, 0.25]), ref, judging.same_numbers, 5e-3) == \
        "and all 2 of its numbers are within 0.001 of the right ones, but not all equal to them: does your " \
        "function round, or compute in low precision (float16)? Return the numbers unrounded"
    assert judging.what_differs(np.array([0.25]), np.array([0.2]), judging.same_numbers, 0.1) == \
        "and its number is within 0.05 of the right ones, but not all equal to them: does your function " \
        "round, or compute in low precision (float16)? Return the numbers unrounded"
    out = np.array([0.501, 0.9])                       # 0.001 off: refused by allclose, not by atol 5e-3
    assert judging.what_differs(out, ref, judging.same_numbers, 5e-3) == \
        "but 2 of its 2 numbers differ, the largest by 0.65 at index [1]"
    assert judging.what_differs(out, ref, lambda a, b: False, 5e-3) == \
        "but 1 of its 2 numbers differs, the largest by 0.65 at index [1]"
    assert judging.what_differs(np.array([0.5 + 4e-6, 0.9]), ref, judging.same_numbers, 1e-7) == \
        "but 1 of its 2 numbers differs, the largest by 0.65 at index [1]"        # 4e-6 within rtol 1e-5
    assert judging.what_differs(np.array([np.nan, 0.25]), ref, judging.same_numbers, 5e-3) == \
        "but 1 of its 2 numbers is nan or inf, the first at index [0]"
    # np.allclose's rtol 1e-5 of 1000 is 0.01: 1000.005 counts as equal there, 2 against 3 does not
    big = np.array([1000.0, 2.0])
    assert judging.what_differs(np.array([1000.005, 3.0]), big, judging.same_numbers, 1e-3) == \
        "but 1 of its 2 numbers differs, the largest by 1 at index [1]"
    # another test counts by atol alone (no rtol): 0.2 and 0.1 off are both more than 5e-3
    assert judging.what_differs(np.array([0.7, 0.35]), ref, lambda a, b: False, 5e-3) == \
        "but 2 of its 2 numbers differ, the largest by 0.2 at index [0]"
    # and the near test too: 0.009 off 1000 is not within atol 5e-3, whatever 1000's size
    assert judging.what_differs(np.array([1000.009]), np.array([1000.0]), lambda a, b: False, 5e-3) == \
        "but it is off by 0.009"


def test_judge_fix_counts_the_numbers_that_differ_by_allclose():
    """A debug judge with the default closeness (same_numbers): an entry 0.001 off is not equal either."""
    judge = judging.judge_fix(lambda x: 2 * x, {}, [(np.array([1.0, 2.0, 3.0]),)], "twice its input.")
    assert judge(lambda x: 2 * x + np.array([0.001, 0.5, 0.0])) == \
        "on fresh inputs your function returns the right shape (3,), but 2 of its 3 numbers differ, the " \
        "largest by 0.5 at index [1]: twice its input."
    assert judge(lambda x: 2 * x) is None


def test_hinted_pairs_each_hinted_wrong_version_with_its_hint():
    """A Trial's known mistakes, as `answer_keys.mistakes_of` shows them to a teacher: each wrong version
    (the function itself, also where it comes with its own closeness) and its hint; only the hinted ones."""
    def no_exp(s):
        return s / s.sum()

    def halved(s):
        return np.exp(s) / np.exp(s).sum() / 2

    def roughly(a, b):
        return True

    mistakes = judging.hinted({"no exp": (no_exp, roughly), "halved": halved, "unhinted": halved},
                              {"no exp": "where is the exp?", "halved": "why / 2?"})
    assert {name: (answer(), hint) for name, (answer, hint) in mistakes.items()} == \
        {"no exp": (no_exp, "where is the exp?"), "halved": (halved, "why / 2?")}


def test_rounded_right_is_each_right_number_rounded_to_one_decimal():
    """The hint 'your steps are right, do not round' (03.4, 10.3): every number a multiple of 0.1 (within
    1e-9, a typed 0.3) and at most 0.05 (+1e-9) from the right one; not for the right numbers themselves."""
    rounded = judging.rounded_right
    right = np.array([0.234, -1.26, 0.252, 0.25, 0.2500000005])
    assert rounded(np.array([0.2, -1.3, 0.3, 0.3, 0.2]), right) is True      # 0.048 off, 0.05, 0.05 + 5e-10
    assert rounded(np.array([0.2, -1.3, 0.3, 0.2, 0.2]), right) is True      # 0.25 down to 0.2 too
    assert rounded(np.array([0.23, -1.26, 0.25, 0.25, 0.25]), right) is False   # 2 decimals: enough
    assert rounded(right, right) is False                                     # not rounded: right
    assert rounded(np.array([0.3, -1.3, 0.3, 0.3, 0.2]), right) is False     # 0.066 off: a step wrong
    assert rounded(np.array([0.2, -1.2, 0.3, 0.3, 0.2]), right) is False     # -1.26 is not -1.2
    assert rounded(np.array([0.2, -1.3, 0.3, 0.3, 0.2 + 1.5e-9]), right) is False   # not a multiple
    assert rounded(np.array([0.2, -1.3, 0.3, 0.3, 0.2]), right + 2e-9) is False     # 0.05 + 3e-9 off
    assert rounded(np.array([[0.2, -1.3, 0.3, 0.3, 0.2]]), right) is False   # a (1, 5) row
    assert rounded(np.array([2.0, 12.0]), np.array([2.04, 11.96])) is True
    assert rounded(np.array([0.0]), np.array([0.05 + 1e-9])) is True          # exactly half: counts
    assert rounded(np.array([0.23, -1.26]), np.array([0.234, -1.26]), decimals=2) is True
    assert rounded(np.array([0.2, -1.3]), np.array([0.234, -1.26]), decimals=2) is False
