"""Checks that a two-plane layout and its shift rule implement exactly the network.

Definitions (a layout is :class:`~cubefab.optical.layout.Layout`; positions are
``(row, col)`` cells, a shift ``(dr, dc)`` images the cell ``(r, c)`` of one plane onto the
cell ``(r + dr, c + dc)`` of the other):

bipartition
    Every node sits in exactly one cell of one plane, and every link joins a node of
    Plane_L to a node of Plane_R.
coverage
    The displacement of every link (from its Plane_L end to its Plane_R end) is a shift of
    the rule. The same rule is used from Plane_R to Plane_L, so it must be symmetric: then
    the reverse displacement, from the Plane_R end, is a shift too.
no spurious image
    Applying every shift of the rule to every node of either plane lands either on one of
    that node's neighbours or outside every node (off the plane, or on an empty cell). An
    image that lands on a node that is not a neighbour is *spurious*: the optics would
    connect two nodes the network does not.
space invariance
    The rule is one set of shifts applied unchanged at every node of both planes. It then
    realises the network exactly when it is symmetric, covers every link and has no
    spurious image: every node then receives the images of exactly its neighbours (and its
    own direct-image partner), the same pattern everywhere.
"""

from dataclasses import dataclass, field, asdict

import numpy as np

from .layout import EMPTY, link_displacements


__all__ = ["validate", "Validation"]


@dataclass
class Validation:
    """Result of :func:`validate`.

    Attributes
    ----------
    valid : bool
        All checks below pass.
    placed_once : bool
        Every node occupies exactly one cell (``error`` says why not).
    same_plane_links : int
        Links with both ends on the same plane (0 for a bipartition).
    uncovered_links : int
        Links whose displacement is not a shift of the rule.
    symmetric : bool
        The rule contains ``(-dr, -dc)`` for every ``(dr, dc)`` and the direct image.
    spurious : int
        Images (node, shift) landing on a node that is not a neighbour, both planes.
    spurious_examples : list
        Up to 10 ``[source, [dr, dc], target]``.
    images : int
        Images per node (fan-out), direct one included.
    reached_min, reached_max : int
        Fewest / most neighbours a node reaches through the rule (both ``degree`` when
        valid).
    images_on_nodes : float
        Mean number of a node's images that land on a node (the rest fall off the planes
        or on empty cells).
    plane_rows, plane_cols, fill_factor, largest_shift
        As :class:`~cubefab.optical.layout.Layout`.
    """

    valid: bool
    placed_once: bool
    same_plane_links: int
    uncovered_links: int
    symmetric: bool
    spurious: int
    images: int
    reached_min: int
    reached_max: int
    images_on_nodes: float
    plane_rows: int
    plane_cols: int
    fill_factor: float
    largest_shift: int
    degree: int
    links: int
    spurious_examples: list = field(default_factory=list)
    uncovered_examples: list = field(default_factory=list)
    error: str = None

    def to_dict(self):
        return asdict(self)

    def summary(self):
        """One line: valid or what fails."""
        if self.valid:
            return (f"valid: every link carried, no spurious image, {self.images} images per "
                    f"node, each reaching its {self.degree} neighbours")
        problems = []
        if not self.placed_once:
            problems.append(self.error)
        if self.same_plane_links:
            problems.append(f"{self.same_plane_links} links inside a plane")
        if self.uncovered_links:
            problems.append(f"{self.uncovered_links} links not in the shift rule")
        if not self.symmetric:
            problems.append("rule not symmetric")
        if self.spurious:
            problems.append(f"{self.spurious} spurious images")
        return "INVALID: " + ", ".join(problems)


def _neighbour_table(topology):
    nodes = topology.nodes()
    return np.stack([topology.index_array(topology.neighbor_array(nodes, p))
                     for p in range(topology.degree)], axis=1)


def validate(layout):
    """Check a layout and its shift rule against the network (module documentation).

    Parameters
    ----------
    layout : Layout

    Returns
    -------
    Validation
    """
    topo = layout.topology
    shifts = set(layout.shifts)
    common = dict(images=layout.images, plane_rows=layout.plane_rows,
                  plane_cols=layout.plane_cols, fill_factor=layout.fill_factor,
                  largest_shift=layout.largest_shift, degree=topo.degree,
                  links=topo.num_links)
    symmetric = (0, 0) in shifts and all((-a, -b) in shifts for a, b in shifts)
    try:
        plane, row, col = layout.positions()
    except ValueError as exc:
        return Validation(False, False, 0, 0, symmetric, 0, reached_min=0, reached_max=0,
                          images_on_nodes=0.0, error=str(exc), **common)

    # bipartition and coverage
    edges = topo.edges()
    e = topo.index_array(edges)
    same = plane[e[:, 0]] == plane[e[:, 1]]
    uncovered_examples = []
    uncovered = 0
    if not same.any():
        disp = link_displacements(topo, layout.plane_l, layout.plane_r)
        missing = np.array([(int(a), int(b)) not in shifts for a, b in disp], dtype=bool)
        uncovered = int(missing.sum())
        for i in np.nonzero(missing)[0][:10]:
            uncovered_examples.append([int(edges[i][0]), int(edges[i][1]),
                                       [int(disp[i][0]), int(disp[i][1])]])

    # every shift from every node of both planes
    nbr = _neighbour_table(topo)
    reached = np.zeros(topo.num_nodes, dtype=np.int64)
    on_nodes = 0
    spurious = 0
    examples = []
    grids = (layout.plane_l, layout.plane_r)
    rows, cols = layout.plane_rows, layout.plane_cols
    for p in (0, 1):
        src = np.nonzero(plane == p)[0]
        target_grid = grids[1 - p]
        for dr, dc in layout.shifts:
            r, c = row[src] + dr, col[src] + dc
            inside = (r >= 0) & (r < rows) & (c >= 0) & (c < cols)
            s = src[inside]
            t_addr = target_grid[r[inside], c[inside]]
            hit = t_addr != EMPTY
            s, t_addr = s[hit], t_addr[hit]
            on_nodes += len(s)
            t = topo.index_array(t_addr)
            is_nbr = (nbr[s] == t[:, None]).any(axis=1)
            np.add.at(reached, s[is_nbr], 1)
            bad = np.nonzero(~is_nbr)[0]
            spurious += len(bad)
            for i in bad[: max(0, 10 - len(examples))]:
                examples.append([int(topo.address(int(s[i]))), [dr, dc], int(t_addr[i])])

    valid = (not same.any()) and uncovered == 0 and symmetric and spurious == 0
    return Validation(valid=valid, placed_once=True, same_plane_links=int(same.sum()),
                      uncovered_links=uncovered, symmetric=symmetric, spurious=spurious,
                      reached_min=int(reached.min()), reached_max=int(reached.max()),
                      images_on_nodes=on_nodes / topo.num_nodes,
                      spurious_examples=examples, uncovered_examples=uncovered_examples,
                      **common)
