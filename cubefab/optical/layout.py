"""The two-plane optical layout shared by the hypercube and DLH constructions."""

from dataclasses import dataclass, field

import numpy as np


__all__ = ["Layout", "EMPTY", "axis_shifts", "link_displacements", "node_positions",
           "derived_shifts"]


#: Marker of an empty cell in :attr:`Layout.plane_l` / :attr:`Layout.plane_r`.
EMPTY = -1


@dataclass(frozen=True, eq=False)
class Layout:
    """Nodes of a network placed on two facing planes, and the shift rule joining them.

    A 3-D space-invariant layout (dlh.txt section V, after Louri and Sung) bipartitions the
    network onto ``Plane_L`` and ``Plane_R``, each a grid of equal-sized node squares.
    Every node of one plane sends the same set of images onto the other plane: an image
    displaced by ``(dr, dc)`` cells from the node's own position (``(0, 0)`` is the direct
    image). A node receives the images of its neighbours, and must not receive any image
    from a node that is not its neighbour (a *spurious* image); see
    :func:`cubefab.optical.validate.validate`.

    Attributes
    ----------
    topology : cubefab.topology.base.Topology
        The network laid out (:class:`~cubefab.topology.Hypercube` or
        :class:`~cubefab.topology.DLH`).
    plane_l, plane_r : numpy.ndarray
        ``(rows, cols)`` int64 arrays of node addresses, :data:`EMPTY` (-1) where a cell
        holds no node. Row 0 is the top row, column 0 the left column, as printed in the
        paper's figures.
    shifts : tuple of (int, int)
        The shift rule: every displacement ``(dr, dc)`` in cells (``dr`` down the rows,
        ``dc`` along the columns) at which a plane is imaged onto the other, sorted,
        including ``(0, 0)``. The same rule serves Plane_L -> Plane_R and
        Plane_R -> Plane_L, so it is symmetric (``(-dr, -dc)`` is in it too).
    construction : str
        Name of the recipe that produced the layout (e.g. ``"cubefab"``, ``"paper"``).
    blocks : numpy.ndarray or None
        For block layouts (DLH): ``(rows, cols)`` array of the block number of each cell
        (``ring * 2m + position``), -1 in the gaps between blocks; None otherwise.
    info : dict
        Construction details (axis bits, gaps, strides, the paper's own values), JSON-ready.
    """

    topology: object
    plane_l: np.ndarray
    plane_r: np.ndarray
    shifts: tuple
    construction: str
    blocks: np.ndarray = None
    info: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.plane_l.shape != self.plane_r.shape or self.plane_l.ndim != 2:
            raise ValueError("Plane_L and Plane_R must be 2-D arrays of the same shape, not "
                             f"{self.plane_l.shape} and {self.plane_r.shape}")
        shifts = tuple(sorted({(int(dr), int(dc)) for dr, dc in self.shifts}))
        object.__setattr__(self, "shifts", shifts)

    # -- sizes ------------------------------------------------------------------------

    @property
    def plane_rows(self):
        """int: rows of each plane."""
        return int(self.plane_l.shape[0])

    @property
    def plane_cols(self):
        """int: columns of each plane."""
        return int(self.plane_l.shape[1])

    @property
    def cells(self):
        """int: node squares per plane (``plane_rows * plane_cols``)."""
        return self.plane_rows * self.plane_cols

    @property
    def fill_factor(self):
        """float: fraction of the cells of both planes that hold a node."""
        return self.topology.num_nodes / (2 * self.cells)

    @property
    def images(self):
        """int: images each node sends (the fan-out of the imaging optics), direct one
        included; equals ``len(shifts)``."""
        return len(self.shifts)

    @property
    def row_shifts(self):
        """list of int: the distinct nonzero row displacements ``dr`` of the rule."""
        return sorted({dr for dr, _ in self.shifts if dr})

    @property
    def col_shifts(self):
        """list of int: the distinct nonzero column displacements ``dc`` of the rule."""
        return sorted({dc for _, dc in self.shifts if dc})

    @property
    def largest_shift(self):
        """int: the largest ``max(|dr|, |dc|)`` of the rule, in node squares."""
        return max(max(abs(dr), abs(dc)) for dr, dc in self.shifts)

    @property
    def label(self):
        return f"{self.topology.label} {self.construction} layout"

    # -- positions --------------------------------------------------------------------

    def positions(self):
        """``(plane, row, col)`` int64 arrays indexed by the dense node index
        (:meth:`Topology.index_array`); ``plane`` is 0 for Plane_L, 1 for Plane_R.

        Raises
        ------
        ValueError
            If a node is missing or placed twice, or a cell holds a non-node.
        """
        n = self.topology.num_nodes
        plane = np.full(n, -1, dtype=np.int64)
        row = np.full(n, -1, dtype=np.int64)
        col = np.full(n, -1, dtype=np.int64)
        count = np.zeros(n, dtype=np.int64)
        for p, grid in enumerate((self.plane_l, self.plane_r)):
            r, c = np.nonzero(grid != EMPTY)
            addresses = grid[r, c]
            bad = [int(a) for a in addresses if not self.topology.is_node(int(a))]
            if bad:
                raise ValueError(f"{self.label}: cell value {bad[0]} is not a node of "
                                 f"{self.topology.label}")
            idx = self.topology.index_array(addresses)
            np.add.at(count, idx, 1)
            plane[idx], row[idx], col[idx] = p, r, c
        if not np.all(count == 1):
            i = int(np.nonzero(count != 1)[0][0])
            raise ValueError(f"{self.label}: node {self.topology.address(i)} is placed "
                             f"{int(count[i])} times")
        return plane, row, col

    def position(self, address):
        """``(plane, row, col)`` of the node ``address`` (plane 0 = Plane_L)."""
        address = self.topology.check_node(address)
        for p, grid in enumerate((self.plane_l, self.plane_r)):
            hit = np.argwhere(grid == address)
            if len(hit):
                return p, int(hit[0][0]), int(hit[0][1])
        raise ValueError(f"node {address} is not placed in {self.label}")

    # -- export -----------------------------------------------------------------------

    def to_dict(self):
        """JSON-ready description: ``plane_rows``, ``plane_cols``, ``plane_l``, ``plane_r``
        (row-major address lists, None where empty), ``row_shifts``, ``col_shifts``,
        ``shifts``, ``images``, ``fill_factor``, ``largest_shift`` and the construction
        details."""
        def cells(grid):
            return [None if a == EMPTY else int(a) for a in grid.ravel().tolist()]
        return {
            "network": self.topology.label,
            "construction": self.construction,
            "plane_rows": self.plane_rows,
            "plane_cols": self.plane_cols,
            "plane_l": cells(self.plane_l),
            "plane_r": cells(self.plane_r),
            "row_shifts": self.row_shifts,
            "col_shifts": self.col_shifts,
            "shifts": [list(s) for s in self.shifts],
            "images": self.images,
            "fill_factor": self.fill_factor,
            "largest_shift": self.largest_shift,
            "info": self.info,
        }


def axis_shifts(row_amounts=(), col_amounts=()):
    """The shift rule made of ``(0, 0)``, ``(±a, 0)`` for each row amount and ``(0, ±a)``
    for each column amount."""
    shifts = {(0, 0)}
    for a in row_amounts:
        shifts |= {(a, 0), (-a, 0)}
    for a in col_amounts:
        shifts |= {(0, a), (0, -a)}
    return tuple(sorted(shifts))


def node_positions(topology, plane_l, plane_r):
    """``(plane, row, col)`` arrays by dense node index of a two-plane placement (see
    :meth:`Layout.positions`)."""
    return Layout(topology, plane_l, plane_r, ((0, 0),), "unnamed").positions()


def link_displacements(topology, plane_l, plane_r):
    """Displacement ``(dr, dc)`` of every link, from its Plane_L end to its Plane_R end.

    Returns
    -------
    numpy.ndarray
        ``(L, 2)`` int64 array, one row per link of ``topology.edges()``.

    Raises
    ------
    ValueError
        If a link joins two nodes of the same plane (the placement is no bipartition).
    """
    plane, row, col = node_positions(topology, plane_l, plane_r)
    e = topology.index_array(topology.edges())
    u, v = e[:, 0], e[:, 1]
    same = plane[u] == plane[v]
    if same.any():
        a, b = topology.edges()[np.nonzero(same)[0][0]]
        raise ValueError(f"link {int(a)}-{int(b)} of {topology.label} joins two nodes of the "
                         f"same plane")
    sign = np.where(plane[u] == 0, 1, -1)
    return np.stack([(row[v] - row[u]) * sign, (col[v] - col[u]) * sign], axis=1)


def derived_shifts(topology, plane_l, plane_r):
    """The smallest symmetric shift rule that carries every link: the link displacements,
    their negatives and ``(0, 0)``."""
    d = link_displacements(topology, plane_l, plane_r)
    shifts = {(0, 0)} | {(int(a), int(b)) for a, b in np.unique(d, axis=0)}
    return tuple(sorted(shifts | {(-a, -b) for a, b in shifts}))
