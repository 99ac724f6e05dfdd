"""3-D free-space optical layouts (dlh.txt section V): Plane_L/Plane_R placements of the
hypercube and the DLH, their space-invariant shift rules, validation and plots.

Uses :mod:`cubefab.topology` only.
"""

from .layout import Layout, EMPTY
from .hypercube import hypercube_layout
from .dlh import dlh_layout
from .validate import validate, Validation
from .plot import plot_layout


__all__ = ["Layout", "EMPTY", "hypercube_layout", "dlh_layout", "validate", "Validation",
           "plot_layout"]
