"""Names and parameters of the topology families, for the command line and tools."""

from typing import NamedTuple

from .hypercube import Hypercube
from .metacube import MAX_ADDRESS_BITS, DualCube, Metacube
from .dlh import DLH
from .mcube import MAX_K as MCUBE_MAX_K, Mcube


__all__ = ["FAMILIES", "Parameter", "make_topology"]


class Parameter(NamedTuple):
    """A family's parameter: its ``name``, the command-line option ``letter``, what it
    is, and the range each value must lie in (``lo`` to ``hi``; values in range may
    still be refused together, e.g. a metacube whose addresses would pass 62 bits)."""
    name: str
    letter: str
    help: str
    lo: int
    hi: int


#: family name -> (constructor, [Parameter])
FAMILIES = {
    "hypercube": (Hypercube, [Parameter("n", "n", "dimension", 1, 62)]),
    "metacube": (Metacube, [Parameter("k", "k", "class-cube dimension", 0, 9),
                            Parameter("m", "m", "cluster dimension", 1, MAX_ADDRESS_BITS)]),
    "dualcube": (DualCube, [Parameter("m", "m", "cluster dimension (MC(1,m))", 1,
                                      (MAX_ADDRESS_BITS - 1) // 2)]),
    "dlh": (DLH, [Parameter("m", "m", "ring parameter (rings of 2m nodes)", 2, 60),
                  Parameter("d", "d", "hypercube dimension", 1, 59)]),
    "mcube": (Mcube, [Parameter("k", "k", "dimension", 1, MCUBE_MAX_K)]),
}


def make_topology(name, **params):
    """Build the topology ``name`` (a key of :data:`FAMILIES`) from its parameters."""
    if name not in FAMILIES:
        raise ValueError(f"topology must be one of {', '.join(FAMILIES)}, not {name!r}")
    constructor, parameters = FAMILIES[name]
    expected = {p.name for p in parameters}
    if set(params) != expected:
        raise TypeError(f"{name} takes parameters {', '.join(sorted(expected))}, "
                        f"not {', '.join(sorted(params)) or 'none'}")
    return constructor(**params)
