"""3-D free-space optical layouts (dlh.txt section V): Plane_L/Plane_R placements of the
hypercube and the DLH, their space-invariant shift rules, validation and plots.

Uses :mod:`cubefab.topology` only.
"""

from .layout import Layout, EMPTY
from .hypercube import hypercube_layout
from .dlh import dlh_layout
from .validate import validate, Validation


__all__ = ["Layout", "EMPTY", "hypercube_layout", "dlh_layout", "validate", "Validation",
           "plot_layout"]


def __getattr__(name):
    # matplotlib is imported only when a plot is drawn
    if name == "plot_layout":
        from .plot import plot_layout
        return plot_layout
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
