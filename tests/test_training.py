"""Lesson 06: the hand-written backward pass against finite differences and other formulations, the
training loop, the baselines, the explorer, and the messages for bad input."""

import math

import numpy as np
import pytest

import attention_lab as al
from attention_lab import training

RNG = np.random.default_rng(2026)


def random_params(cfg, seed):
    """Every weight random (W_u too: at zero it would hide the gradients below it)."""
    rng = np.random.default_rng(seed)
    return {k: rng.standard_normal(w.shape) / 2 for k, w in al.init_params(cfg, seed).items()}


# ------------------------------------------------------------ gradients
@pytest.mark.parametrize("shape", [(4, 3, 3, 2), (2, 3, 5, 4, 3)])   # (..., m, n, d_k, d_v)
def test_attention_backward_matches_finite_differences(shape):
    *lead, m, n, dk, dv = shape
    Q, K = RNG.standard_normal((*lead, m, dk)), RNG.standard_normal((*lead, n, dk))
    V, dY = RNG.standard_normal((*lead, n, dv)), RNG.standard_normal((*lead, m, dv))
    grads = al.attention_backward(Q, K, V, dY)
    for i, x in enumerate((Q, K, V)):
        def L(z, i=i):
            args = [Q, K, V]
            args[i] = z
            return (al.scaled_dot_product_attention(*args)[0] * dY).sum()
        assert al.relative_error(grads[i], al.numerical_gradient(L, x)) < 1e-6


def test_softmax_backward_is_the_jacobian():
    """dS = J dA with the softmax's Jacobian J = diag(a) - a aᵀ written out (another formulation)."""
    s, dA = RNG.standard_normal(6), RNG.standard_normal(6)
    a = np.exp(s) / np.exp(s).sum()
    J = np.diag(a) - np.outer(a, a)
    assert np.allclose(training.softmax_backward_unchecked(a[None], dA[None])[0], J @ dA)


@pytest.mark.parametrize("cfg", [
    al.ModelConfig(vocab_size=5, n=4, d=8, n_heads=2),
    al.ModelConfig(vocab_size=4, n=3, d=6, n_heads=3, scaled=False),
    al.ModelConfig(vocab_size=5, n=4, d=4, positions=False),
    al.ModelConfig(vocab_size=5, n=4, d=4, attention=False, task="copy"),
], ids=["2 heads", "3 heads unscaled", "no positions", "no attention"])
def test_every_model_gradient_matches_finite_differences(cfg):
    p = random_params(cfg, 1)                  # without positions P is random and must not matter
    ids, targets = al.task_batch(np.random.default_rng(3), 3, cfg)
    _, grads = al.loss_and_grads(p, ids, targets, cfg)
    for name in al.PARAMS:
        def L(w, name=name):
            return al.loss_of(p | {name: w}, ids, targets, cfg)
        numeric = al.numerical_gradient(L, p[name])
        assert al.relative_error(grads[name], numeric) <= 1e-6, name
    if not cfg.positions:
        assert not grads["P"].any()
    if not cfg.attention:
        assert not any(grads[k].any() for k in ("W_q", "W_k", "W_v", "W_O"))


def test_forward_is_lesson_03s_multi_head_attention_plus_a_residual():
    """The batched, vectorised forward pass against the lessons' one-sequence functions."""
    cfg = al.ModelConfig(vocab_size=6, n=5, d=8, n_heads=2)
    p = random_params(cfg, 2)
    ids, targets = al.task_batch(np.random.default_rng(4), 3, cfg)
    expected = []
    for seq in ids:
        X = p["E"][seq] + p["P"]
        Y, _ = al.multi_head_attention(X, X, p["W_q"], p["W_k"], p["W_v"], p["W_O"], 2)
        expected.append((X + Y) @ p["W_u"])
    logits = np.array(expected)                                             # (3, 5, 6)
    logp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    by_hand = -np.mean([logp[b, i, targets[b, i]] for b in range(3) for i in range(5)])
    assert np.isclose(al.loss_of(p, ids, targets, cfg), by_hand)
    assert np.array_equal(al.predict(p, ids, cfg)[0], logits.argmax(-1))


def test_untrained_model_guesses_uniformly():
    cfg = al.ModelConfig()
    ids, targets = al.task_batch(np.random.default_rng(0), 10, cfg)
    assert np.isclose(al.loss_of(al.init_params(cfg, 0), ids, targets, cfg), np.log(10))


# ------------------------------------------------------------ Adam and training
def test_adam_matches_the_formula_by_hand():
    """Two steps on one weight with gradients 2 then -1 (lr 0.1): computed from Adam's definition."""
    p = {k: np.zeros((1, 1)) for k in al.PARAMS}
    state = {k: (np.zeros((1, 1)), np.zeros((1, 1))) for k in al.PARAMS}
    g1 = {k: np.full((1, 1), 2.0) for k in al.PARAMS}
    g2 = {k: np.full((1, 1), -1.0) for k in al.PARAMS}
    training.adam_step(p, g1, state, 1, 0.1)
    assert np.isclose(p["E"][0, 0], -0.1 * 2 / (2 + 1e-8))                # first step: lr · sign(g)
    training.adam_step(p, g2, state, 2, 0.1)
    m = 0.9 * 0.1 * 2 + 0.1 * -1                                          # 0.08
    v = 0.999 * 0.001 * 4 + 0.001 * 1                                     # 0.004996
    step = 0.1 * (m / (1 - 0.81)) / (np.sqrt(v / (1 - 0.998001)) + 1e-8)
    assert np.isclose(p["E"][0, 0], -0.1 * 2 / (2 + 1e-8) - step)


def test_training_learns_reversal_and_its_anti_diagonal_on_unseen_sequences():
    cfg = al.ModelConfig()
    run = al.train(cfg, steps=120, seed=0, snapshots=[0, 60, 120])
    held, held_targets = al.task_batch(np.random.default_rng(6), 500, cfg)
    stream = np.random.default_rng(1)                        # train()'s data: default_rng(seed + 1)
    seen = {tuple(s) for _ in range(120) for s in al.task_batch(stream, 64, cfg)[0]}
    assert not seen & {tuple(s) for s in held}               # held out: never trained on
    assert al.accuracy(run.params, held, held_targets, cfg) >= 0.99
    A = al.predict(run.params, held, cfg)[1][:, 0]           # (500, 8, 8)
    assert (A.argmax(-1) == np.arange(8)[::-1]).all()
    assert A[:, np.arange(8), np.arange(8)[::-1]].mean() >= 0.9
    assert run.snapshot_steps == [0, 60, 120]
    assert all(np.array_equal(run.snapshot_params[-1][k], run.params[k]) for k in al.PARAMS)
    again = al.train(cfg, steps=120, seed=0)
    assert np.array_equal(again.losses, run.losses)          # seeded: the same run twice


def test_the_ablations_fail_as_the_lesson_says():
    cfg = al.ModelConfig()
    held, held_targets = al.task_batch(np.random.default_rng(6), 500, cfg)
    no_pos = al.ModelConfig(positions=False)
    acc = al.accuracy(al.train(no_pos, steps=300).params, held, held_targets, no_pos)
    assert abs(acc - al.commonest_token_baseline(held, held_targets)) < 0.03
    no_attn = al.ModelConfig(attention=False)
    assert al.accuracy(al.train(no_attn, steps=300).params, held, held_targets, no_attn) < 0.15
    # 06.1's answer, by experiment: copying needs no attention
    copy = al.ModelConfig(task="copy", attention=False)
    ids, targets = al.task_batch(np.random.default_rng(6), 500, copy)
    assert al.accuracy(al.train(copy, steps=300).params, ids, targets, copy) >= 0.95
    assert al.EXERCISES["06.1"].evaluate("a").status == "correct"


def test_training_does_not_change_its_inputs_and_snapshots_are_copies():
    cfg = al.ModelConfig(vocab_size=4, n=3, d=4)
    p = random_params(cfg, 0)
    before = {k: w.copy() for k, w in p.items()}
    ids, targets = al.task_batch(np.random.default_rng(0), 2, cfg)
    ids_before = ids.copy()
    al.loss_and_grads(p, ids, targets, cfg)
    al.predict(p, ids, cfg)
    assert all(np.array_equal(before[k], p[k]) for k in p) and np.array_equal(ids, ids_before)
    x = RNG.standard_normal((2, 3))
    x_before = x.copy()
    al.numerical_gradient(lambda z: (z ** 2).sum(), x)
    assert np.array_equal(x, x_before)
    run = al.train(cfg, steps=3, snapshots=[0, 3])
    assert not np.array_equal(run.snapshot_params[0]["W_u"], run.snapshot_params[1]["W_u"])


# ------------------------------------------------------------ baselines
def test_counting_baseline_by_hand():
    train_ids = np.array([[0, 1], [0, 1], [1, 1]])
    train_targets = np.array([[1, 0], [1, 1], [0, 0]])
    # place 0: digit 0 -> target 1 (twice), digit 1 -> 0; place 1: digit 1 -> 0 twice, 1 once -> 0
    test_ids, test_targets = np.array([[0, 1], [1, 1]]), np.array([[1, 1], [1, 0]])
    assert al.counting_baseline(train_ids, train_targets, test_ids, test_targets) == 2 / 4


def test_commonest_token_baseline_by_hand():
    ids = np.array([[2, 2, 0, 1], [0, 1, 0, 1]])
    # sequence 1: mode 2 (twice): targets hit it 2 of 4 times; sequence 2: modes 0 and 1 tied,
    # guessing one of them at random is right with probability 1/2 at every place
    assert al.commonest_token_baseline(ids, ids[:, ::-1]) == (2 / 4 + 4 * 0.5 / 4) / 2


def test_commonest_of_others_by_hand():
    ids = np.array([[2, 2, 0, 1]])
    # place 0 (a 2): the others are 2, 0, 1, all once -> 0, 1, 2 tied; place 2 (a 0): others 2, 2, 1 -> 2
    rule = al.commonest_of_others(ids, vocab_size=4)
    assert rule.shape == (1, 4, 4)
    assert rule[0, 0].tolist() == [True, True, True, False]
    assert rule[0, 1].tolist() == [True, True, True, False]
    assert rule[0, 2].tolist() == [False, False, True, False]
    assert rule[0, 3].tolist() == [False, False, True, False]


def test_commonest_other_baseline_by_hand():
    ids = np.array([[2, 2, 0, 1]])
    # targets reversed: 1, 0, 2, 2. Place 0: 1 is one of 3 tied -> 1/3; place 1: 0 is one of 3 -> 1/3;
    # places 2 and 3: the commonest other is 2 alone, and the target is 2 -> 1 each
    assert np.isclose(al.commonest_other_baseline(ids, ids[:, ::-1]), (1 / 3 + 1 / 3 + 1 + 1) / 4)
    # the whole-sequence rule would say 2 everywhere: right at places 2 and 3 only
    assert al.commonest_token_baseline(ids, ids[:, ::-1]) == 0.5


def test_train_from_given_weights():
    """start=init_params(seed) is the default run; start is copied, not changed; its shapes are checked."""
    cfg = al.ModelConfig()
    start = al.init_params(cfg, seed=3)
    before = {k: w.copy() for k, w in start.items()}
    run = al.train(cfg, steps=3, seed=3, start=start)
    assert np.array_equal(run.losses, al.train(cfg, steps=3, seed=3).losses)
    assert all(np.array_equal(start[k], before[k]) for k in start)
    with pytest.raises(ValueError, match=r"W_q has shape \(32, 16\)"):
        al.train(cfg, steps=1, start=start | {"W_q": np.zeros((32, 16))})


def differences(a, b) -> list[str]:
    """What differs between two Runs in any bit: the loss curve, a kept step, a snapshot, a final weight."""
    differ = ["losses"] * (not np.array_equal(a.losses, b.losses))
    differ += ["snapshot_steps"] * (a.snapshot_steps != b.snapshot_steps)
    for t, x, y in zip(a.snapshot_steps, a.snapshot_params, b.snapshot_params):
        differ += [f"step {t}: {k}" for k in x if not np.array_equal(x[k], y[k])]
    return differ + [k for k in a.params if not np.array_equal(a.params[k], b.params[k])]


@pytest.mark.parametrize("cfg", [al.ModelConfig(), al.ModelConfig(task="largest", n_heads=4),
                                 al.ModelConfig(positions=False, scaled=False),
                                 al.ModelConfig(attention=False)],
                         ids=["reverse", "largest-h4", "no-positions-unscaled", "no-attention"])
def test_seeds_trained_side_by_side_are_each_seed_trained_alone(cfg):
    """train_seeds carries a leading seed axis through the forward pass, the backward pass and Adam; each
    seed's run is the one train() trains with that seed alone, to the last bit: the loss curve, every
    snapshot, the final weights (np.array_equal). Seeds in any order, one twice; with `starts`, one start
    per seed, as train's `start`; the starts are not changed, the runs share no memory."""
    seeds = [5, 0, 2, 0]
    runs = al.train_seeds(cfg, seeds, steps=20, batch=8, snapshots=[0, 1, 6, 20])
    for seed, run in zip(seeds, runs):
        alone = al.train(cfg, steps=20, batch=8, seed=seed, snapshots=[0, 1, 6, 20])
        assert run.snapshot_steps == [0, 1, 6, 20]
        assert not differences(run, alone), (seed, differences(run, alone))
    assert not np.array_equal(runs[0].losses, runs[1].losses)
    assert not any(np.shares_memory(runs[0].params[k], runs[1].params[k]) for k in al.PARAMS)
    starts = [random_params(cfg, seed) for seed in seeds]
    before = [{k: w.copy() for k, w in start.items()} for start in starts]
    runs = al.train_seeds(cfg, seeds, steps=5, batch=8, starts=starts)
    for seed, start, run in zip(seeds, starts, runs):
        assert not differences(run, al.train(cfg, steps=5, batch=8, seed=seed, start=start))
    assert all(np.array_equal(s[k], b[k]) for s, b in zip(starts, before) for k in s)


@pytest.mark.parametrize("call, exc, message", [
    (lambda: al.train_seeds(al.ModelConfig(), range(3), steps=1, starts=al.init_params(al.ModelConfig())),
     TypeError, r"starts is a dict: expected a list with one entry per seed \(3 seeds: \[0, 1, 2\]\)"),
    (lambda: al.train_seeds(al.ModelConfig(), [0, 1], steps=1, starts=[al.init_params(al.ModelConfig())]),
     ValueError, r"starts has 1 entries for 2 seeds \[0, 1\]: expected one per seed"),
    (lambda: al.train_seeds(al.ModelConfig(), "01", steps=1), TypeError, r"seeds is '01' of type str"),
    (lambda: al.train_seeds(al.ModelConfig(), np.array([[0, 1]]), steps=1), TypeError, r"of type ndarray"),
    (lambda: al.train_seeds(al.ModelConfig(), (), steps=1), ValueError, r"seeds is empty"),
    (lambda: al.train_seeds(al.ModelConfig(), [True], steps=1), TypeError, r"a seed in seeds is True"),
    (lambda: al.train(al.ModelConfig(), steps=1, seed=-2), ValueError,
     r"seed is -2: expected a whole number >= 0"),
])
def test_bad_seeds_and_starts_are_refused(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


def test_saturation_experiment_starts_as_it_says():
    """Shrinking W_q and W_k by 32^(1/4) each gives the scaled model's step-0 weights without the
    scale (and enlarging them the unscaled model's): checked on predict() directly. The score gradient
    after step 1 is checked by finite differences through the scores, and the score move by hand."""
    cfg = al.ModelConfig()
    held, _ = al.task_batch(np.random.default_rng(6), 10, cfg)
    t = al.saturation_experiment(held, seeds=(0,), steps=6)
    assert t["losses"].shape == (4, 1, 6) and t["reach"].tolist() == [[-1]] * 4
    for key in ("max_weight", "mirror_below_001", "grad_S", "score_move"):
        assert t[key].shape == (4, 1)
    names = list(t["names"])
    p = al.init_params(cfg, 0)
    for name, scaled in (("scaled", True), ("unscaled", False)):
        A = al.predict(p, held, al.ModelConfig(scaled=scaled))[1]
        assert np.isclose(t["max_weight"][names.index(name), 0], A.max(axis=-1).mean())
    assert np.allclose(t["max_weight"][[0, 1]], t["max_weight"][[2, 3]])   # resized: the other's start
    assert t["max_weight"][1, 0] > t["max_weight"][0, 0]
    # dL/dS of the plain unscaled run after one step, by central differences on the scores themselves
    c = al.ModelConfig(scaled=False)
    one = al.train(c, steps=1, seed=0).params
    X = one["E"][held] + one["P"]                                      # (B, n, d)
    S = (X @ one["W_q"]) @ np.swapaxes(X @ one["W_k"], -1, -2)          # (B, n, n) unscaled scores

    def loss(S_):
        E_ = np.exp(S_ - S_.max(axis=-1, keepdims=True))
        H = X + (E_ / E_.sum(axis=-1, keepdims=True)) @ (X @ one["W_v"]) @ one["W_O"]
        z = H @ one["W_u"]
        z = z - z.max(axis=-1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
        return -np.take_along_axis(logp, held[:, ::-1, None], axis=-1).mean()
    dS = np.zeros_like(S)
    for idx in np.ndindex(S.shape):                                    # every score, one at a time
        up, down = S.copy(), S.copy()
        up[idx] += 1e-5
        down[idx] -= 1e-5
        dS[idx] = (loss(up) - loss(down)) / 2e-5
    assert np.isclose(t["grad_S"][names.index("unscaled"), 0], np.linalg.norm(dS), rtol=1e-4)
    later = al.train(c, steps=6, seed=0).params
    X6 = later["E"][held] + later["P"]
    S6 = (X6 @ later["W_q"]) @ np.swapaxes(X6 @ later["W_k"], -1, -2)
    assert np.isclose(t["score_move"][names.index("unscaled"), 0], np.abs(S6 - S).mean())
    with pytest.raises(ValueError, match="threshold"):
        al.saturation_experiment(held, threshold=0)


def test_saturation_experiment_with_its_defaults_is_the_four_runs_it_names():
    """Lesson 06, section 7, with one seed and the defaults (100 steps, loss threshold 0.1). Each of the four
    runs is rebuilt here from its description: the same random start, W_q and W_k multiplied by 32^(-1/4)
    ('shrunk') or 32^(1/4) ('enlarged'; d_k = 32), trained with train(start=...). Its first losses, the first
    step below 0.1 (counted here), the step-0 weights on `held` (largest of a row, and the mirror place below
    0.01, counted here) and the move of the scores S = scale · Q Kᵀ from step 1 to 6 are compared with the
    table's; the gradients of a resized run equal the other model's (their scores are the same)."""
    cfg = al.ModelConfig()
    held, _ = al.task_batch(np.random.default_rng(6), 10, cfg)
    t = al.saturation_experiment(held, seeds=(0,))
    assert list(t["names"]) == ["scaled", "unscaled", "unscaled, W_q and W_k shrunk",
                                "scaled, W_q and W_k enlarged"]
    assert t["losses"].shape == (4, 1, 100)
    runs = ((True, 1.0), (False, 1.0), (False, 32 ** -0.25), (True, 32 ** 0.25))
    for i, (scaled, factor) in enumerate(runs):
        c = al.ModelConfig(scaled=scaled)
        start = al.init_params(c, 0)
        start["W_q"], start["W_k"] = start["W_q"] * factor, start["W_k"] * factor
        losses = t["losses"][i, 0]
        assert np.allclose(losses[:6], al.train(c, steps=6, seed=0, start=start).losses, rtol=1e-12), i
        below = [step for step, loss in enumerate(losses) if loss < 0.1]
        assert below and t["reach"][i, 0] == below[0], i          # every run gets there within 100 steps
        A = al.predict(start, held, c)[1][:, 0]                    # (B, n, n) at step 0
        assert np.isclose(t["max_weight"][i, 0], np.mean([row.max() for row in A.reshape(-1, 8)]))
        mirror = [A[b, q, 7 - q] < 0.01 for b in range(len(held)) for q in range(8)]
        assert np.isclose(t["mirror_below_001"][i, 0], np.mean(mirror)), i
        scores = []
        for steps in (1, 6):
            p = al.train(c, steps=steps, seed=0, start=start).params
            X = p["E"][held] + p["P"]
            S = (X @ p["W_q"]) @ np.swapaxes(X @ p["W_k"], -1, -2)
            scores.append(S / math.sqrt(32) if scaled else S)
        assert np.isclose(t["score_move"][i, 0], np.abs(scores[1] - scores[0]).mean()), i
    assert np.allclose(t["grad_S"][0], t["grad_S"][2]) and np.allclose(t["grad_S"][1], t["grad_S"][3])
    assert not np.allclose(t["grad_S"][0], t["grad_S"][1])
    assert 0 < t["mirror_below_001"][0, 0] < t["mirror_below_001"][1, 0] < 1


def test_saturation_experiment_shorter_than_six_steps_moves_no_score():
    """With fewer than 6 steps there is no step 6: the move is measured from step 1 to step 1, 0 for every
    run; no run gets below the loss 0.1 in 3 steps (-1). Seed 1's runs start from seed 1's weights (the
    scaled one is train(seed=1)'s run). A seed below 0 is refused by its name."""
    cfg = al.ModelConfig()
    held, _ = al.task_batch(np.random.default_rng(6), 4, cfg)
    t = al.saturation_experiment(held, seeds=(1,), steps=3)
    assert t["losses"].shape == (4, 1, 3)
    assert np.allclose(t["losses"][0, 0], al.train(cfg, steps=3, seed=1).losses, rtol=1e-12)
    A = al.predict(al.init_params(cfg, 1), held, cfg)[1]
    assert np.isclose(t["max_weight"][0, 0], A.max(axis=-1).mean())
    assert t["score_move"].tolist() == [[0.0]] * 4 and t["reach"].tolist() == [[-1]] * 4
    with pytest.raises(ValueError) as info:
        al.saturation_experiment(held, seeds=(-1,), steps=3)
    assert str(info.value) == "seed is -1: expected a whole number >= 0"


def test_saturation_experiment_counts_each_seeds_own_first_step_below_the_threshold():
    """Two seeds and a threshold between their lowest losses in 3 steps of the scaled run: the seed that gets
    below it has its first such step, the other -1 (never), whatever the other seed did. The seed that gets
    there is put second, and each step is counted by hand on the returned losses."""
    cfg = al.ModelConfig()
    held, _ = al.task_batch(np.random.default_rng(6), 4, cfg)
    lowest = {seed: al.train(cfg, steps=3, seed=seed).losses.min() for seed in (0, 1)}
    assert lowest[0] != lowest[1]
    seeds = sorted(lowest, key=lowest.get, reverse=True)             # the one that gets below, second
    threshold = (lowest[0] + lowest[1]) / 2
    t = al.saturation_experiment(held, seeds=seeds, steps=3, threshold=threshold)
    for i in range(4):
        for j in range(2):
            below = [step for step, loss in enumerate(t["losses"][i, j]) if loss < threshold]
            assert t["reach"][i, j] == (below[0] if below else -1), (i, j)
    assert t["reach"][0, 0] == -1 and t["reach"][0, 1] >= 0



# ------------------------------------------------------------ the explorer and the pictures
def test_training_explorer_moves_through_the_steps():
    cfg = al.ModelConfig()
    run = al.train(cfg, steps=40, snapshots=range(0, 41, 10))
    held, targets = al.task_batch(np.random.default_rng(6), 50, cfg)
    ex = al.training_explorer(run, held, targets)
    assert "(a tie: every digit equally likely)" in ex.summary() and "step 0:" in ex.summary()
    first = ex.image.value
    ex.set(step=40)
    assert ex.image.value != first and "step 40:" in ex.summary()
    p, d_k = run.params, cfg.d // cfg.n_heads                           # head 0, by hand (not the kernel)
    X = p["E"][held[0]] + p["P"]                                         # (n, d)
    S = (X @ p["W_q"][:, :d_k]) @ (X @ p["W_k"][:, :d_k]).T / np.sqrt(d_k)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    np.testing.assert_allclose(ex.result["weights"], E / E.sum(axis=1, keepdims=True), rtol=1e-12, atol=1e-15)
    assert np.isfinite(ex.result["loss"]).all()                          # step 40's loss: the last one
    ex.set(step=10)                                                      # the loss of steps 0..10, not 11
    assert np.isfinite(ex.result["loss"][:11]).all() and np.isnan(ex.result["loss"][11:]).all()
    ex.reset()
    assert ex.image.value == first
    fig = al.plot_model_flow(run.params, cfg, held[0], title="the model of step 40")
    assert len(fig.axes) == 5 and "the model of step 40" in fig.get_suptitle()   # 4 panels + 0..1 bar
    assert fig.axes[4].get_ylim() == (0.0, 1.0)
    fig = al.plot_learning_curve(run, held, targets, 0.1)
    assert len(fig.axes[1].lines[0].get_xdata()) == 5


# ------------------------------------------------------------ bad input
@pytest.mark.parametrize("call, error, fragment", [
    (lambda: al.ModelConfig(d=30, n_heads=4) and al.init_params(al.ModelConfig(d=30, n_heads=4)),
     ValueError, "d = 30 is not divisible by n_heads = 4"),
    (lambda: al.init_params(al.ModelConfig(task="sort")), ValueError, "expected one of"),
    (lambda: al.init_params({"d": 4}), TypeError, "expected an al.ModelConfig"),
    (lambda: al.loss_of(al.init_params(al.ModelConfig()), [[0, 10]], [[0, 1]], al.ModelConfig()),
     ValueError, "ids holds 0..10: expected token ids 0..9"),
    (lambda: al.loss_of(al.init_params(al.ModelConfig()), [[0.5, 1]], [[0, 1]], al.ModelConfig()),
     TypeError, "whole numbers of shape (B, n)"),
    (lambda: al.loss_of(al.init_params(al.ModelConfig()), [[0, 1]], [[0, 1, 2]], al.ModelConfig()),
     ValueError, "targets has shape (1, 3) and ids (1, 2)"),
    (lambda: al.loss_of({"E": 1}, [[0]], [[0]], al.ModelConfig()), ValueError, "a dict with keys"),
    (lambda: al.loss_of([1], [[0]], [[0]], al.ModelConfig()), TypeError, "a dict with keys"),
    (lambda: al.loss_of(al.init_params(al.ModelConfig()) | {"W_q": np.zeros((32, 16))}, [[0]], [[0]],
                        al.ModelConfig()), ValueError, "W_q has shape (32, 16): expected (32, 32)"),
    (lambda: al.attention_backward(np.ones((3, 2)), np.ones((3, 2)), np.ones((3, 2)), np.ones((2, 2))),
     ValueError, "dY has shape (2, 2), but the output Y has shape (3, 2)"),
    (lambda: al.attention_backward(np.ones((2, 3, 2)), np.ones((3, 2)), np.ones((3, 2)), np.ones((2, 3, 2))),
     ValueError, "different batch or head dimensions"),
    (lambda: al.numerical_gradient(np.ones(3), np.ones(3)), TypeError, "f must be a function"),
    (lambda: al.numerical_gradient(np.sum, np.ones(3), eps=2.0), ValueError, "eps = 2.0"),
    (lambda: al.relative_error(np.ones(3), np.ones(4)), ValueError, "a has shape (3,) and b has shape (4,)"),
    (lambda: al.train(al.ModelConfig(), steps=5, lr=3), ValueError, "lr = 3"),
    (lambda: al.train(al.ModelConfig(), steps=5, snapshots=[0, 9]), ValueError, "snapshot step 9"),
    (lambda: al.task_batch(0, 3, al.ModelConfig()), TypeError, "np.random.Generator"),
    (lambda: al.training_explorer(al.train(al.ModelConfig(), steps=2), np.zeros((2, 8), int),
                                  np.zeros((2, 8), int)), ValueError, "kept 0 snapshot(s)"),
    (lambda: al.counting_baseline(np.zeros((2, 3), int), np.zeros((2, 3), int), np.zeros((2, 4), int),
                                  np.zeros((2, 4), int)), ValueError, "expected training ids"),
    (lambda: al.commonest_token_baseline(np.zeros((2, 3), int), np.zeros((2, 4), int)), ValueError,
     "of one shape (B, n)"),
    (lambda: al.commonest_token_baseline(np.zeros((2, 3)), np.zeros((2, 3))), TypeError,
     "ids has dtype float64: expected token ids, whole numbers >= 0"),
    (lambda: al.commonest_of_others(np.zeros((2, 1), int)), ValueError, "with n >= 2"),
    (lambda: al.commonest_of_others(np.array([[0, 5]]), vocab_size=3), ValueError, "vocab_size is 3"),
    (lambda: al.commonest_other_baseline(np.zeros((2, 3), int), np.zeros((2, 4), int)), ValueError,
     "of one shape (B, n)"),
    (lambda: al.counting_baseline(np.zeros((2, 3)), np.zeros((2, 3), int), np.zeros((2, 3), int),
                                  np.zeros((2, 3), int)), TypeError, "train_ids has dtype float64"),
])
def test_bad_input_is_refused_with_a_message(call, error, fragment):
    with pytest.raises(error) as info:
        call()
    assert fragment in str(info.value)


def test_gradients_of_sequences_shorter_than_the_position_table():
    """3 tokens with a table of n = 5 positions (d = 4): only P's first 3 rows get a gradient, as by
    finite differences (a slice by d instead of by the sequence's length gives other rows)."""
    cfg = al.ModelConfig(vocab_size=5, n=5, d=4, n_heads=2)
    p = random_params(cfg, 2)
    ids = np.random.default_rng(4).integers(0, 5, size=(2, 3))
    targets = ids[:, ::-1]
    _, grads = al.loss_and_grads(p, ids, targets, cfg)
    for name in ("P", "W_q", "E"):
        numeric = al.numerical_gradient(lambda w, name=name: al.loss_of(p | {name: w}, ids, targets, cfg),
                                        p[name])
        assert al.relative_error(grads[name], numeric) <= 1e-6, name
    assert grads["P"][:3].any() and not grads["P"][3:].any()


def test_relative_change_is_the_move_over_the_start():
    before = np.array([[3.0, 0.0], [0.0, 4.0]])                  # norm 5
    after = before + np.array([[0.0, 1.0], [1.0, 0.0]])          # moved by sqrt(2)
    assert al.relative_change(after, before) == pytest.approx(np.sqrt(2) / 5)
    assert al.relative_change(before, before) == 0.0
    with pytest.raises(ValueError, match="before is all zeros"):
        al.relative_change(after, np.zeros((2, 2)))
    with pytest.raises(ValueError, match="after"):
        al.relative_change(np.ones(3), before)
