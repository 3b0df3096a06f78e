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
