"""The interface every topology model shares, and its parameter checks."""

from abc import ABCMeta, abstractmethod

import numpy as np


__all__ = ["Topology", "check_int"]


def check_int(name, value, minimum, maximum=None):
    """Return ``value`` as an int, or raise if it is not an integer in range.

    Raises
    ------
    TypeError
        If ``value`` is not an integer (bools are refused too).
    ValueError
        If ``value`` is outside ``[minimum, maximum]``.
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, not {value!r}")
    value = int(value)
    if value < minimum or (maximum is not None and value > maximum):
        if maximum is None:
            raise ValueError(f"{name} must be an integer >= {minimum}, not {value!r}")
        raise ValueError(f"{name} must be an integer in [{minimum}, {maximum}], not {value!r}")
    return value


class Topology(metaclass=ABCMeta):
    """A direct network whose nodes are named by unsigned integer addresses.

    Subclasses describe one family of networks (see ``docs/conventions.md``):
    the address format, the port numbering and the reference routing. Everything
    else (routes, BFS, properties, dense indexing of arrays) is built from the few
    abstract methods here, so a new topology slots in by implementing them.

    Attributes
    ----------
    name : str
        Family name as used on the command line (``hypercube``, ``metacube``, ...).
    address_bits : int
        Width of the address field of a packet header.
    num_nodes : int
        Number of nodes.
    degree : int
        Number of network ports per node; port ``degree`` is the local port.
    algorithms : tuple of str
        Names of the routing algorithms of :meth:`next_port`; the first is the default.
    header_fields : dict
        For each algorithm, the header fields besides ``dest`` its per-hop decision reads.
    """

    name = None
    algorithms = ("minimal",)
    header_fields = {}

    # -- parameters -------------------------------------------------------------------

    @property
    @abstractmethod
    def params(self):
        """dict: the constructor's parameters, e.g. ``{"k": 2, "m": 3}``."""

    def __repr__(self):
        args = ", ".join(f"{key}={value}" for key, value in self.params.items())
        return f"{type(self).__name__}({args})"

    def __eq__(self, other):
        return type(self) is type(other) and self.params == other.params

    def __hash__(self):
        return hash((type(self).__name__, tuple(self.params.items())))

    @property
    def label(self):
        """str: short human-readable name, e.g. ``MC(2,3)``."""
        return f"{type(self).__name__}({','.join(str(v) for v in self.params.values())})"

    @property
    def num_links(self):
        """int: number of undirected links (every topology here is regular)."""
        return self.num_nodes * self.degree // 2

    @property
    def port_width(self):
        """int: width of a port number, ``ceil(log2(degree + 1))``."""
        return max(1, self.degree.bit_length())

    # -- addresses --------------------------------------------------------------------

    def is_node(self, address):
        """Whether ``address`` (an int) names a node of this network."""
        if isinstance(address, bool) or not isinstance(address, (int, np.integer)):
            return False
        address = int(address)
        return 0 <= address < (1 << self.address_bits) and self._is_node(address)

    def _is_node(self, address):
        return True

    def check_node(self, address, name="address"):
        """Return ``address`` as an int, or raise TypeError/ValueError naming the valid range."""
        if isinstance(address, bool) or not isinstance(address, (int, np.integer)):
            raise TypeError(f"{name} must be an integer node address, not {address!r}")
        address = int(address)
        if not 0 <= address < (1 << self.address_bits):
            raise ValueError(f"{name} must be in [0, {(1 << self.address_bits) - 1}] "
                             f"for {self.label}, not {address!r}")
        if not self._is_node(address):
            raise ValueError(f"{name} {address} is not a node of {self.label}: "
                             f"{self._node_rule()}")
        return address

    def _node_rule(self):
        return "every address is a node"

    def check_port(self, port, name="port", local=False):
        """Return ``port`` as an int in ``[0, degree)`` (``[0, degree]`` if ``local``)."""
        return check_int(name, port, 0, self.degree if local else self.degree - 1)

    def index(self, address):
        """Dense index in ``[0, num_nodes)`` of the node ``address``."""
        return int(self.index_array(np.array([self.check_node(address)], dtype=np.int64))[0])

    def address(self, index):
        """Address of the node with dense index ``index``."""
        index = check_int("index", index, 0, self.num_nodes - 1)
        return int(self.address_array(np.array([index], dtype=np.int64))[0])

    def index_array(self, addresses):
        """Vectorised :meth:`index` (no checks); identity unless overridden."""
        return np.asarray(addresses, dtype=np.int64)

    def address_array(self, indices):
        """Vectorised :meth:`address` (no checks); identity unless overridden."""
        return np.asarray(indices, dtype=np.int64)

    def nodes(self):
        """numpy int64 array of all node addresses, in dense index order."""
        return self.address_array(np.arange(self.num_nodes, dtype=np.int64))

    # -- links ------------------------------------------------------------------------

    @abstractmethod
    def neighbor_array(self, addresses, port):
        """Vectorised neighbour through ``port`` of each address (no checks)."""

    def neighbor(self, address, port):
        """The node reached from ``address`` through network port ``port``."""
        address = self.check_node(address)
        port = self.check_port(port)
        return self._neighbor(address, port)

    def _neighbor(self, address, port):
        """Scalar neighbour (no checks); subclasses may override for speed."""
        return int(self.neighbor_array(np.array([address], dtype=np.int64), port)[0])

    def neighbors(self, address):
        """List of the neighbours of ``address`` in port order."""
        address = self.check_node(address)
        return [self._neighbor(address, p) for p in range(self.degree)]

    def port(self, u, v):
        """The port of ``u`` whose link leads to ``v``; ValueError if they are not adjacent."""
        u = self.check_node(u, "u")
        v = self.check_node(v, "v")
        for p, w in enumerate(self.neighbors(u)):
            if w == v:
                return p
        raise ValueError(f"nodes {u} and {v} are not adjacent in {self.label}")

    def edges(self):
        """numpy array of shape (num_links, 2): every undirected link once, u < v, sorted."""
        nodes = self.nodes()
        parts = []
        for p in range(self.degree):
            nb = self.neighbor_array(nodes, p)
            keep = nodes < nb
            parts.append(np.stack([nodes[keep], nb[keep]], axis=1))
        pairs = np.concatenate(parts) if parts else np.zeros((0, 2), dtype=np.int64)
        pairs = np.unique(pairs, axis=0)
        return pairs

    # -- routing ----------------------------------------------------------------------

    def check_algorithm(self, algorithm):
        """Return the algorithm name (the default when ``None``), or raise ValueError."""
        if algorithm is None:
            return self.algorithms[0]
        if algorithm not in self.algorithms:
            raise ValueError(f"algorithm must be one of {', '.join(self.algorithms)} "
                             f"for {self.name}, not {algorithm!r}")
        return algorithm

    def next_port(self, here, dest, algorithm=None, **header):
        """The output port a router at ``here`` picks for a packet to ``dest``.

        This is the per-hop decision that hardware implements: it may read only
        ``here``, ``dest`` and the header fields the algorithm declares in
        :attr:`header_fields` (e.g. ``src``). Returns ``degree`` when
        ``here == dest`` (deliver locally).
        """
        algorithm = self.check_algorithm(algorithm)
        here = self.check_node(here, "here")
        dest = self.check_node(dest, "dest")
        needed = self.header_fields.get(algorithm, ())
        unknown = set(header) - set(needed)
        if unknown:
            raise TypeError(f"algorithm {algorithm!r} reads no header field "
                            f"{', '.join(sorted(unknown))}")
        for field in needed:
            if field not in header:
                raise TypeError(f"algorithm {algorithm!r} needs header field {field!r}")
            header[field] = self.check_node(header[field], field)
        if here == dest:
            return self.degree
        return self._next_port(here, dest, algorithm, **header)

    @abstractmethod
    def _next_port(self, here, dest, algorithm, **header):
        """Per-hop decision for ``here != dest`` (arguments already checked)."""

    def whole_port_table(self, algorithm):
        """``table[here, dest]`` (by address) of every decision of ``algorithm``, for a
        family that tabulates its routing whole more cheaply than it answers pair by
        pair (the Mcube's Mroute tables); None for the others, whose enumerations go
        through :meth:`next_port` (and their translations)."""
        return None

    def route(self, src, dst, algorithm=None):
        """The path (list of addresses, ``src`` first, ``dst`` last) hop-by-hop routing takes."""
        algorithm = self.check_algorithm(algorithm)
        src = self.check_node(src, "src")
        dst = self.check_node(dst, "dst")
        header = {"src": src} if "src" in self.header_fields.get(algorithm, ()) else {}
        path = [src]
        here = src
        limit = 4 * self.address_bits + 4 * self.num_nodes.bit_length() + 64
        while here != dst:
            port = self._next_port(here, dst, algorithm, **header)
            here = self._neighbor(here, port)
            path.append(here)
            if len(path) > limit:  # pragma: no cover - guards a broken routing function
                raise RuntimeError(f"{algorithm} routing from {src} to {dst} does not terminate")
        return path

    # -- distances --------------------------------------------------------------------

    def distance(self, s, t):
        """Exact hop distance between ``s`` and ``t`` (BFS unless a closed form is known)."""
        s = self.check_node(s, "s")
        t = self.check_node(t, "t")
        from .properties import bfs_distances
        return int(bfs_distances(self, s)[self.index(t)])
