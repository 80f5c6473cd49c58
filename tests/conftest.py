"""Shared test setup: a non-interactive matplotlib backend and the repository root."""
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def close_figures():
    """Each test starts and ends with no open figure."""
    from matplotlib import pyplot as plt

    plt.close("all")
    yield
    plt.close("all")
