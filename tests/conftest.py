import matplotlib
import pytest
from hypothesis import HealthCheck, settings

matplotlib.use("Agg")   # no window; the tests draw into memory

# No deadline: timing on a shared 2-core machine is noise, not a property of the code.
settings.register_profile("ci", max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt
    plt.close("all")


@pytest.fixture(scope="module")
def real_model():
    """SmolLM2-135M, loaded once per test module (the cached file, else fetched); skipped offline."""
    import attention_lab.real_model as rm
    try:
        return rm.load_model()
    except rm.ModelUnavailable as exc:
        print(f"SKIPPED: {exc}")
        pytest.skip(f"the SmolLM2 file could not be fetched: {str(exc).splitlines()[0]}")
