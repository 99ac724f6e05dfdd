"""Sub-Mcube frames of mcube.txt (sections 2-4) and the paper's diameter: what the
Mcube model (:mod:`cubefab.topology.mcube`) and its broadcast
(:mod:`cubefab.topology.mcube_broadcast`) share."""

import numpy as np


__all__ = ["paper_diameter"]


def paper_diameter(k):
    """ceil((k+1)/2) (section 3, for k >= 3; a hypercube's k below)."""
    return k if k <= 2 else (k + 2) // 2


# A sub-Mcube is a *frame*: a sorted array of nodes and a tuple of link numbers
# (principal link, ..., lateral link). Its principals are the two halves left when the
# principal link is cut, its laterals the halves left when the lateral link is cut. A
# principal keeps the frame's links minus the first; a lateral {A_L :: B_L} is viewed as
# in section 4 ("when we view A00 and B00 as its laterals"): the PCL that joins its
# halves becomes its lateral link, so its frame is (links[1:-1]) + (principal link,).

class _Frames:
    def __init__(self, nb):
        self.nb = nb
        self.n = nb.shape[0]
        self._splits = {}

    @staticmethod
    def lateral_frame(links):
        if len(links) <= 1:
            return links[:-1]
        return links[1:-1] + (links[0],)

    def split(self, nodes, cut, links):
        """The two halves of ``nodes`` when the links numbered ``cut`` are removed, or
        None if they are not two equal halves matched by ``cut`` links."""
        key = (nodes.tobytes(), cut, links)
        if key in self._splits:
            return self._splits[key]
        nb = self.nb
        inside = np.zeros(self.n, dtype=bool)
        inside[nodes] = True
        keep = [j for j in links if j != cut]
        reached = np.zeros(self.n, dtype=bool)
        reached[nodes[0]] = True
        frontier = nodes[:1]
        while frontier.size and keep:
            nxt = nb[frontier][:, keep].ravel()
            nxt = np.unique(nxt[inside[nxt] & ~reached[nxt]])
            reached[nxt] = True
            frontier = nxt
        h0 = nodes[reached[nodes]]
        h1 = nodes[~reached[nodes]]
        result = None
        if 2 * h0.size == nodes.size and np.isin(nb[h0, cut], h1).all():
            result = (h0, h1)
        self._splits[key] = result
        return result
