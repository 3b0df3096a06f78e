"""attention_lab/notation.py: the bridges from a column-vector text (q = W x) and from PyTorch's nn.Linear
weight (out_features × in_features) to the lessons' row form (q = x @ W). The expected numbers are worked
out by hand here (lesson 00, section 3, and the 'Write a poem' weights of the sources' README, lesson 02,
section 9), the messages a student reads are written out in full."""

import numpy as np
import pytest

import attention_lab as al


def test_a_column_convention_matrix_gives_the_same_query_in_row_form():
    """Lesson 00, section 3: W = [[1, 2, 0], [0, 1, 3]] and x = (1, 2, 3): by hand W x = (1 + 4, 2 + 9)."""
    W = [[1.0, 2.0, 0.0], [0.0, 1.0, 3.0]]
    W_row = al.from_column_convention(W)
    assert W_row.shape == (3, 2) and W_row.dtype == np.float64
    assert np.array_equal(np.array([1.0, 2.0, 3.0]) @ W_row, [5.0, 11.0])
    assert np.array_equal(W_row, [[1, 0], [2, 1], [0, 3]])
    W_in = np.array(W)
    W_row[0, 0] = 99.0                                    # a copy: the text's matrix is untouched
    assert W_in[0, 0] == 1.0 and al.from_column_convention(W_in)[0, 0] == 1.0


def test_a_torch_linear_weight_gives_what_nn_linear_computes():
    """The 'Write a poem' W_q of the sources' README, in nn.Linear's (out, in) layout, on 'Write' =
    (1.16, 0.23): by hand 1.16 · 0.5406 + 0.23 · 0.5869 = 0.7621 and 1.16 · (-0.1657) + 0.23 · 0.6496 =
    -0.0428, the first row lesson 02 prints."""
    weight = np.array([[0.5406, 0.5869], [-0.1657, 0.6496]])
    q = np.array([1.16, 0.23]) @ al.from_torch_linear(weight)
    assert np.allclose(q, [1.16 * 0.5406 + 0.23 * 0.5869, 1.16 * -0.1657 + 0.23 * 0.6496])
    assert np.array_equal(np.round(q, 4), [0.7621, -0.0428])
    wide = al.from_torch_linear([[1, 2, 3], [4, 5, 6]])   # out_features 2, in_features 3 -> (3, 2)
    assert wide.dtype == np.float64 and np.array_equal(wide, [[1, 4], [2, 5], [3, 6]])


@pytest.mark.parametrize("call, message", [
    (lambda: al.from_column_convention([1.0, 2.0]),
     "W has shape (2,) (1-D): expected a 2-D array (d_out, d_in); for a single token write it as one row, "
     "e.g. np.reshape(W, (1, -1))"),
    (lambda: al.from_column_convention(np.ones((2, 2, 2))),
     "W has shape (2, 2, 2) (3-D): expected a 2-D array (d_out, d_in); this function takes one sequence "
     "at a time"),
    (lambda: al.from_torch_linear([1.0, 2.0]),
     "weight has shape (2,) (1-D): expected a 2-D array (out_features, in_features); for a single token "
     "write it as one row, e.g. np.reshape(weight, (1, -1))"),
    (lambda: al.from_torch_linear(np.zeros((0, 3))),
     "weight has shape (0, 3): expected at least one row and one column (out_features, in_features)"),
])
def test_a_matrix_of_the_wrong_shape_is_refused_with_its_name_and_layout(call, message):
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value) == message


def test_booleans_are_refused_with_the_layout_asked_for():
    with pytest.raises(TypeError) as info:
        al.from_torch_linear(np.eye(2, dtype=bool))
    assert str(info.value) == ("weight holds booleans: expected real numbers of shape "
                               "(out_features, in_features) (booleans belong in `mask`)")
