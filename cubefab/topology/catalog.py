"""Names and parameters of the topology families, for the command line and tools."""

from .hypercube import Hypercube
from .metacube import DualCube, Metacube
from .dlh import DLH
from .mcube import Mcube


__all__ = ["FAMILIES", "make_topology"]


#: family name -> (constructor, [(parameter, option letter, help)])
FAMILIES = {
    "hypercube": (Hypercube, [("n", "n", "dimension")]),
    "metacube": (Metacube, [("k", "k", "class-cube dimension"),
                            ("m", "m", "cluster dimension")]),
    "dualcube": (DualCube, [("m", "m", "cluster dimension (MC(1,m))")]),
    "dlh": (DLH, [("m", "m", "ring parameter (rings of 2m nodes)"),
                  ("d", "d", "hypercube dimension")]),
    "mcube": (Mcube, [("k", "k", "dimension")]),
}


def make_topology(name, **params):
    """Build the topology ``name`` (a key of :data:`FAMILIES`) from its parameters."""
    if name not in FAMILIES:
        raise ValueError(f"topology must be one of {', '.join(FAMILIES)}, not {name!r}")
    constructor, parameters = FAMILIES[name]
    expected = {p for p, _, _ in parameters}
    if set(params) != expected:
        raise TypeError(f"{name} takes parameters {', '.join(sorted(expected))}, "
                        f"not {', '.join(sorted(params)) or 'none'}")
    return constructor(**params)
