"""Walks over the class cube of a metacube: Lemma 1's weak Hamiltonian paths and
the shortest covering walks behind ``minimal`` routing.

The class cube of MC(k, m) is the k-cube of class numbers. Metacube routing must
visit every class whose field differs between the current node and the
destination (a field can only be changed while in its own class) and end in the
destination's class.
"""

from functools import cached_property, lru_cache

import numpy as np


__all__ = ["weak_hamiltonian_path", "walk_successors", "CoveringWalks"]


# Figure 6 of metacube.txt: weak Hamiltonian paths in the 2-cube from s = 00, by t.
_BASE_2CUBE = {
    0b00: (0b00, 0b01, 0b11, 0b10, 0b00),   # (a) Hamiltonian cycle
    0b01: (0b00, 0b10, 0b11, 0b01),         # (b) Hamiltonian path
    0b10: (0b00, 0b01, 0b11, 0b10),         # (c) Hamiltonian path
    0b11: (0b00, 0b01, 0b11, 0b10, 0b11),   # (d) extended Hamiltonian path
}


def _gray_cycle(n, start, first_bit):
    """Hamiltonian cycle of the n-cube as a list starting at ``start`` whose first
    step flips ``first_bit``: the reflected Gray code with bits 0 and ``first_bit``
    exchanged, translated to ``start``."""
    cycle = []
    for i in range(1 << n):
        g = i ^ (i >> 1)
        b0, bj = g & 1, (g >> first_bit) & 1
        g &= ~((1 << first_bit) | 1)
        g |= (b0 << first_bit) | bj
        cycle.append(start ^ g)
    return cycle


@lru_cache(maxsize=None)
def weak_hamiltonian_path(n, s, t):
    """The weak Hamiltonian path from ``s`` to ``t`` in the n-cube (Lemma 1 of
    metacube.txt), as a tuple of nodes.

    The construction follows the lemma's proof and is deterministic: the 2-cube
    paths of Figure 6 (translated by XOR with ``s``); for ``n >= 3`` the split along
    dimension ``n - 1`` with Case 1 (same subcube: detour the path's first edge
    through a Hamiltonian cycle of the other subcube) and Case 2 (different
    subcubes: a Hamiltonian path of the source subcube, built from a Gray-code cycle,
    then the cross edge and the induction in the other subcube). The result is a
    Hamiltonian cycle when ``s == t``, else a Hamiltonian path or an extended
    Hamiltonian path (length ``2**n - 1`` or ``2**n``).
    """
    if n == 0:
        return (s,)
    if n == 1:
        return (s, s ^ 1, s) if s == t else (s, t)
    if n == 2:
        return tuple(v ^ s for v in _BASE_2CUBE[s ^ t])
    top = 1 << (n - 1)
    low = top - 1
    if (s ^ t) & top == 0:
        # Case 1: s and t in the same (n-1)-subcube.
        sub = weak_hamiltonian_path(n - 1, s & low, t & low)
        path = [v | (s & top) for v in sub]
        j = (path[0] ^ path[1]).bit_length() - 1
        cycle = _gray_cycle(n - 1, (s ^ top) & low, j)
        detour = [cycle[0]] + cycle[:0:-1]          # s', around the cycle back to s'^(j)
        detour = [v | ((s ^ top) & top) for v in detour]
        return tuple([path[0]] + detour + path[1:])
    # Case 2: s and t in different subcubes.
    cycle = _gray_cycle(n - 1, s & low, 0)           # ends at s ^ (1 << (n - 2))
    first = [v | (s & top) for v in cycle]
    cross = first[-1] ^ top
    sub = weak_hamiltonian_path(n - 1, cross & low, t & low)
    return tuple(first + [v | (t & top) for v in sub])


def walk_successors(walk):
    """Map each class of ``walk`` to the class after its first occurrence.

    A memoryless router at class ``c`` that has finished field ``c`` moves to
    ``successor[c]``; the only class that occurs twice in a weak Hamiltonian path
    is its end point, whose second visit ends the route.
    """
    successor = {}
    for here, there in zip(walk, walk[1:]):
        successor.setdefault(here, there)
    return successor


class CoveringWalks:
    """Shortest covering walks in the class k-cube.

    ``cost[D, c, t]`` is the length of a shortest walk of the k-cube that starts at
    class ``c``, visits every class of the set ``D`` (a bit mask over the ``2**k``
    classes) and ends at class ``t``. ``step[D, c, t]`` is the class-bit (port) of its
    first step, the lowest one among optimal first steps, or 255 when the walk is
    empty (``c == t`` and ``D`` within ``{c}``); being at ``c`` counts as visiting it.

    Parameters
    ----------
    k : int
        Class-cube dimension, ``0 <= k <= 4`` (``2**(2**k)`` subsets are tabulated).
    """

    def __init__(self, k):
        if not 0 <= k <= 4:
            raise ValueError(f"covering-walk tables are built for 0 <= k <= 4, not {k!r}")
        self.k = k
        h = 1 << k
        classes = np.arange(h)
        hamming = np.bitwise_count(classes[:, None] ^ classes[None, :]).astype(np.uint8)
        # Held-Karp over subsets, one popcount layer at a time (a layer needs only the
        # one below): cost[D, c, t] = min over v in D of H(c, v) + cost[D - v, v, t]
        masks = np.arange(1 << h)
        sizes = np.bitwise_count(masks)
        cost = np.full((1 << h, h, h), 255, dtype=np.uint8)
        cost[0] = hamming
        for size in range(1, h + 1):
            layer = masks[sizes == size]
            best = np.full((layer.size, h, h), 255, dtype=np.uint8)
            for v in range(h):
                has = (layer >> v) & 1 == 1
                cand = hamming[:, v][None, :, None] + cost[layer[has] ^ (1 << v), v][:, None, :]
                best[has] = np.minimum(best[has], cand)
            cost[layer] = best
        self.cost = cost

    @cached_property
    def step(self):
        """``step[D, c, t]``: the first class bit of an optimal walk (built on first use)."""
        k, h, cost = self.k, 1 << self.k, self.cost
        masks = np.arange(1 << h)
        step = np.full((1 << h, h, h), 255, dtype=np.uint8)
        for c in range(h):
            rest = masks & ~(1 << c)                         # being at c visits c
            best = np.full((1 << h, h), 255, dtype=np.int16)
            for j in reversed(range(k)):                     # lowest j wins ties
                cand = cost[rest, c ^ (1 << j), :].astype(np.int16)
                take = cand <= best
                best = np.where(take, cand, best)
                step[:, c, :] = np.where(take, j, step[:, c, :])
            done = (cost[rest, c, :] == 0)
            step[:, c, :] = np.where(done, 255, step[:, c, :])
        return step

    @classmethod
    @lru_cache(maxsize=None)
    def of(cls, k):
        """The shared table for dimension ``k``."""
        return cls(k)
