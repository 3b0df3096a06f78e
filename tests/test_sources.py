"""The sources' examples are frozen records with named fields, fresh on every call, as the examples are."""

import dataclasses

import numpy as np
import pytest

import attention_lab as al

MAKERS = {al.source_000: al.SourceAttention, al.source_001: al.SourceAttention,
          al.source_002: al.SourceAttention, al.source_003: al.SourceTorchLayout,
          al.source_004: al.SourceEncoderDecoder}


@pytest.mark.parametrize("make", MAKERS, ids=lambda f: f.__name__)
def test_each_source_is_a_frozen_record(make):
    src = make()
    assert type(src) is MAKERS[make]
    with pytest.raises(dataclasses.FrozenInstanceError):
        src.printed = {}
    assert "printed" in [f.name for f in dataclasses.fields(src)] and src.printed


@pytest.mark.parametrize("make", MAKERS, ids=lambda f: f.__name__)
def test_each_call_gives_fresh_arrays(make):
    first = make()
    arrays = [f.name for f in dataclasses.fields(first) if isinstance(getattr(first, f.name), np.ndarray)]
    for name in arrays:
        getattr(first, name)[...] = 99.0               # a lesson changes its own copy
    second = make()
    for name in arrays:
        assert not (getattr(second, name) == 99.0).any(), f"{make.__name__}().{name} is shared between calls"
    for value in first.printed.values():
        if isinstance(value, np.ndarray):
            value[...] = 99.0
    assert not any(np.any(np.asarray(v) == 99.0) for v in make().printed.values())


def test_the_rows_are_tokens_and_the_shapes_fit():
    s0, s1, s2 = al.source_000(), al.source_001(), al.source_002()
    assert s0.X.shape == (4, 4) and s1.X.shape == (2, 2) and s2.X.shape == (3, 4)   # n tokens, d features
    assert s2.W_q.shape == s2.W_k.shape == s2.W_v.shape == (4, 3)
    s3 = al.source_003()
    assert s3.tokens == ["Write", "a", "poem"] and s3.encodings.shape == (3, 2)
    s4 = al.source_004()
    assert s4.Z_self.shape == (2, 2) and s4.Z_encoder.shape == (3, 2)
    assert np.array_equal(s4.X, [[1, 0], [0, 1], [1, 1]]) and np.array_equal(s4.W, np.eye(2))
