"""Names and parameters of the topology families, for the command line and tools.

A family enters the command line by one line here: its class in :data:`CLASSES`. The
name, the parameters and their ranges are the class's own (``name``, ``parameters``
and ``aliases``, special cases with parameters of their own such as the dual-cube
MC(1, m); :class:`~cubefab.topology.base.Topology`).
"""

from .base import Parameter
from .hypercube import Hypercube
from .metacube import Metacube
from .dlh import DLH
from .mcube import Mcube
from .foldedcube import FoldedCube


__all__ = ["FAMILIES", "CLASSES", "Parameter", "make_topology", "family_titles"]


#: The topology families, in the order the command line lists them.
CLASSES = (Hypercube, Metacube, DLH, Mcube, FoldedCube)

#: family name -> (constructor, [Parameter]); a family's aliases follow it
FAMILIES = {}
for _cls in CLASSES:
    FAMILIES[_cls.name] = (_cls, list(_cls.parameters))
    FAMILIES.update(_cls.aliases)
del _cls


def family_titles(predicate):
    """The titles of the families whose class satisfies ``predicate``, as a phrase:
    ``"the hypercube, the metacube and the DLH"`` (for messages listing families)."""
    titles = [cls.title for cls in CLASSES if predicate(cls)]
    if len(titles) < 2:
        return "".join(titles)
    return ", ".join(titles[:-1]) + " and " + titles[-1]


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
