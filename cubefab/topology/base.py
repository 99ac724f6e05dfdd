"""The interface every topology model shares, and its parameter checks."""

from abc import ABCMeta, abstractmethod
from typing import NamedTuple

import numpy as np


__all__ = ["Topology", "Parameter", "check_int"]


class Parameter(NamedTuple):
    """A family's parameter: its ``name``, the command-line option ``letter``, what it
    is, and the range each value must lie in (``lo`` to ``hi``; values in range may
    still be refused together, e.g. a metacube whose addresses would pass 62 bits)."""
    name: str
    letter: str
    help: str
    lo: int
    hi: int


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

    What a family knows beyond that (virtual-channel wraps, translations, the fault
    bound, adaptive ports, broadcast schedules and trees, structural closed forms) is
    a method or attribute of its class, under "family behaviour" below, with a
    default that fits a family without that knowledge; the analyses and the hardware
    ask the topology, never its class (docs/extending.md lists them).

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
    title : str
        The family in a sentence ("the hypercube"), for messages listing families.
    parameters : list of Parameter
        The constructor's parameters as the command line takes them (the catalog,
        :mod:`cubefab.topology.catalog`).
    aliases : dict
        Special cases the command line names on their own: name -> (constructor,
        [Parameter]) (the metacube's ``dualcube``).
    tree_algorithm : str or None
        The routing the broadcast trees follow (:mod:`cubefab.topology.broadcast_tree`):
        one of :attr:`algorithms`, ``"bfs-lowest"`` (lowest minimal port by BFS
        distances), or None for a family without broadcast trees.
    broadcast_wrap_reads_address : bool
        Whether :meth:`broadcast_wrap_array` reads the node's address (so that an
        address-strapped router needs a strap for it) or only the ports.
    adaptive_ports_are_minimal : bool
        Whether :meth:`adaptive_ports` are exactly the minimal ports (the formal proof
        of the adaptive route units relies on it).
    """

    name = None
    title = None
    parameters = ()
    aliases = {}
    algorithms = ("minimal",)
    header_fields = {}
    tree_algorithm = None
    broadcast_wrap_reads_address = True
    adaptive_ports_are_minimal = True

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

    # -- family behaviour ---------------------------------------------------------------
    #
    # Each method below is what the analyses and the hardware ask of a family. The
    # defaults fit a family that only has its routing: no VC wraps (a routing that is
    # deadlock-free on one VC class; the deadlock checker proves it or finds the cycle),
    # no translations (every destination is routed), no fault bound (fault-tolerant
    # routing refused), minimal adaptive ports, the generic broadcast schedules, no
    # structural closed forms (the analyses enumerate).

    def translation_mask(self):
        """Address bits whose XOR maps every route (ports and VCs included) onto a route
        (:func:`~cubefab.topology.deadlock.translation_mask`); 0: none."""
        return 0

    def wrap_array(self, addresses, port):
        """Vectorised ``wrap(here, port)`` of the VC-assignment function (bool array,
        no checks): the hops where the VC class rises (see
        :mod:`cubefab.topology.deadlock`). Default: never."""
        return np.zeros(np.shape(addresses), dtype=bool)

    def source_key_shift(self, algorithm):
        """Low bits of the source address that ``algorithm``'s decision does not read
        (for an algorithm whose :attr:`header_fields` hold ``src``): routes from sources
        equal above that shift take the same ports. Default 0: every bit."""
        return 0

    @property
    def connectivity(self):
        """int or None: internally disjoint paths between any two nodes, when the family
        states it (the fault-tolerance guarantee); None refuses fault-tolerant routing."""
        return None

    def escape_algorithm(self, algorithm):
        """The deterministic routing the escape VCs follow when ``algorithm`` (checked,
        reading only the destination) runs adaptively: itself unless the family says
        otherwise (:func:`~cubefab.topology.adaptive.escape_algorithm`)."""
        return algorithm

    def distance_function(self):
        """``f(s, t)`` giving exact distances for many pairs (the adaptive model calls it
        per neighbour): :meth:`distance`, unless the family has a faster table."""
        return self.distance

    def adaptive_ports(self, here, dest, algorithm):
        """The ports the adaptive VCs are offered at ``here`` towards ``dest`` (checked
        nodes and algorithm), as a tuple, or None for the minimal ports (the default;
        :func:`~cubefab.topology.adaptive.adaptive_ports`)."""
        return None

    def adaptive_port_masks(self, dest, algorithm):
        """Vectorised :meth:`adaptive_ports` towards ``dest``: int64 array indexed densely,
        bit ``p`` set when port ``p`` is offered, or None for the minimal ports."""
        return None

    def broadcast_algorithms(self):
        """The family's broadcast constructions
        (:class:`~cubefab.topology.broadcast.BroadcastAlgorithm`), preferred first; the
        generic ones follow them (:func:`~cubefab.topology.broadcast.algorithms_for`)."""
        return []

    def check_tree_routing(self):
        """Raise ValueError if this network's broadcast trees cannot be built (a tree
        routing tabulated only up to some size); nothing by default."""

    def one_port_tree_sends(self, source):
        """``(sends, algorithm name, paper steps)`` of a one-port broadcast tree that is
        no schedule of :func:`~cubefab.topology.broadcast.broadcast_schedule`, or None to
        follow that schedule (the default)."""
        return None

    def broadcast_wrap_array(self, addresses, in_ports, port, model):
        """Vectorised ``bwrap(here, in_port, port)`` of a broadcast copy leaving through
        network ``port`` (see :mod:`cubefab.topology.broadcast_deadlock`), or None for
        the default: the unicast wrap of the reverse channel (``in_ports`` not read)."""
        return None

    def disjoint_paths_construction(self):
        """``function(topology, s, t)`` building internally disjoint paths by a paper's
        construction, or None for the minimum-cost flow
        (:func:`~cubefab.topology.paths.disjoint_paths`)."""
        return None

    def disjoint_paths_method(self, s, t, paths):
        """How :func:`~cubefab.topology.paths.disjoint_paths` found ``paths`` from ``s``
        to ``t``, in words (``cubefab paths``)."""
        return "minimum-cost flow (vertex-split graph)"

    def disjoint_paths_bound(self, s, t):
        """``(bound, source)``: a paper's bound on the longest disjoint path from ``s``
        to ``t``, or None."""
        return None

    def structural_classes(self):
        """The exact distance distributions by source class without enumerating nodes,
        ``(list of SourceClass, method)``, or None (:mod:`cubefab.topology.structure`)."""
        return None

    def uniform_load_bound(self, algorithm):
        """The uniform-traffic channel-load bound from the structure of ``algorithm``'s
        routes, or None (:func:`~cubefab.topology.uniform_load.uniform_load`)."""
        return None

    def bisection_flow_bound(self):
        """The flow (congestion) lower bound on the bisection width from the structure,
        or None (:mod:`cubefab.topology.bisection`)."""
        return None

    def bisection_spectral_bound(self):
        """The spectral lower bound on the bisection width from the structure, or None."""
        return None

    def bisection_cut(self):
        """``(side function on address arrays, cut, description)`` of a cut known from
        the structure, or None."""
        return None
