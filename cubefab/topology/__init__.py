"""Exact topology models: the golden reference for routing, hardware and layouts."""

from .base import Topology, check_int
from .hypercube import Hypercube
from .metacube import Metacube, DualCube
from .dlh import DLH
from .mcube import Mcube
from .properties import bfs_distances, distance_distribution, properties
from .catalog import FAMILIES, make_topology
from .bisection import (bisection, bisection_exact, bisection_lower_bound,
                        bisection_upper_bound)


__all__ = ["Topology", "check_int", "Hypercube", "Metacube", "DualCube", "DLH", "Mcube",
           "bfs_distances", "distance_distribution", "properties", "FAMILIES",
           "make_topology", "bisection", "bisection_exact", "bisection_lower_bound",
           "bisection_upper_bound"]
