"""Adaptive selection (docs/router.md, "Adaptive routing"): the output choice of each
input queue of an adaptive router.

A head takes an offered port whose adaptive VC for its flow is idle and has a credit
(by congestion: its escape port while that VC is at least half empty, then, where the
escape port is offered, the escape VC of its class while that is at least three
quarters empty, then the first port in port order), else its escape port on the escape
VC of its class; an injected head first steers clear of the ports the network queues'
heads prefer; the rest of the packet follows the head's choice. How the choice treats
the escape routing is the configuration's escape policy
(:func:`~cubefab.hdl.route.escape_policy`, :mod:`cubefab.hdl.route.escape`).
"""

from amaranth.hdl import C, Cat, Mux, Signal

from ..route import escape_policy


__all__ = ["escape_first", "AdaptiveSelection", "QueueChoice"]


def escape_first(bits, escape, width):
    """Of the ports ``bits`` (a bit per port, ``width`` bits), the escape port if it is
    one of them (``escape``, one-hot), else the lowest; one-hot, or zero."""
    preferred = bits & escape
    return Mux(preferred.any(), preferred, (bits & (~bits + 1))[:width])


class AdaptiveSelection:
    """The adaptive selection of one router: per network output, two bits per VC
    (its downstream buffer is at least half empty, ``room_p{o}``, and nearly empty,
    ``ample_p{o}``, by the escape policy's :meth:`~.EscapePolicy.ample_level`),
    computed once per output and shared by every queue's choice.

    Parameters
    ----------
    frame : Frame
    out : OutputVCs
    """

    def __init__(self, frame, out):
        self.frame, self.out = frame, out
        self.policy = escape_policy(frame.topology, frame.config.algorithm)
        depth, degree = frame.config.depth, frame.degree
        half, ample = (depth + 1) // 2, self.policy.ample_level(depth)
        self.room = [Signal(len(out.credits[o]), name=f"room_p{o}") for o in range(degree)]
        self.nearly_empty = [Signal(len(out.credits[o]), name=f"ample_p{o}")
                             for o in range(degree)]
        for o, flags in enumerate(self.room):
            frame.m.d.comb += [
                flags.eq(Cat(count >= half for count in out.credits[o])),
                self.nearly_empty[o].eq(Cat(count >= ample for count in out.credits[o]))]

    def vc_room(self, o, vc):
        """VC ``vc`` of network output ``o`` has half its credits."""
        return self.room[o].bit_select(vc, 1)

    def vc_ample(self, o, vc):
        """VC ``vc`` of network output ``o`` is nearly empty."""
        return self.nearly_empty[o].bit_select(vc, 1)

    def prefers(self, route, n):
        """The port a network queue's head prefers, from its buffered route
        (flip-flops: in parallel with its choice, not after it): the escape port if
        offered, else the first offered port, else the escape port."""
        return Mux(route.offered.any(), escape_first(route.offered, route.escape, n),
                   route.escape)

    def choose(self, p, v, outputs, vc, active, contested=None):
        """The output choice of input queue ``(p, v)`` (:class:`QueueChoice`); returns
        the request bit per output of ``outputs``, the output VC and the class the
        flit leaves with."""
        return QueueChoice(self, p, v, outputs, vc, active).build(contested)


class QueueChoice:
    """Output choice of input queue ``(p, v)`` of an adaptive router
    (:meth:`build`).

    A packet's head, at the front of the queue, wants a port of ``route.offered``
    whose adaptive VC for its flow (``vcs + route.lane``) is idle and has a credit,
    preferring one whose downstream buffer is at least half empty (``vc_room``): the
    escape port if it is such a port; else the escape port, if it is offered, on its
    escape VC (``route.vc``) if that is idle and its downstream buffer nearly empty
    (``vc_ample``: the deterministic route is kept while it has room, which a
    complement permutation, whose deterministic routes do not conflict, needs); else
    the first port whose adaptive VC is at least half empty (in the order of
    ``outputs``), else the escape port if it has a credit at all, else the first port
    that has; when none is, the escape port on its escape VC if that is idle and has a
    credit (the escape policy's :meth:`~.EscapePolicy.keep_escape` decides when the
    escape VC comes first). A head of the injection queue (``p`` is the local port)
    takes only a VC whose downstream buffer is at least half empty, adaptive or
    escape: the packets already in the network come first, which holds the accepted
    throughput past saturation; and it steers clear of the outputs that a network
    queue's head prefers (``contested``, a bit per port of ``outputs``: see
    :meth:`AdaptiveSelection.prefers`), which the arbiter would most likely grant to
    that queue: an uncontested port among those it may take first (the escape port
    first among them), then the escape port on its escape VC if uncontested, else the
    choice above (the policy's :meth:`~.EscapePolicy.welcome`,
    :meth:`~.EscapePolicy.calm` and :meth:`~.EscapePolicy.steer` refine it). Once the
    head is granted, the packet's other flits want the same port and VC
    (``held_*``), with a credit.
    """

    def __init__(self, selection, p, v, outputs, vc, active):
        frame = selection.frame
        self.m, self.config, self.degree = frame.m, frame.config, frame.degree
        self.frame, self.selection, self.policy = frame, selection, selection.policy
        self.p, self.v, self.outputs, self.n = p, v, outputs, len(outputs)
        self.fifo, self.route, self.head, self.active = vc.fifo, vc.route, vc.flit, active
        self.vc_room, self.vc_ample = selection.vc_room, selection.vc_ample
        self.vc_bits = frame.layout["vc"].shape.width
        self.adaptive_vc = None

    def named(self, name, width, value):
        """``value`` as the signal ``{name}_p{p}_vc{v}``. (Each intermediate is a
        signal: an expression used twice would be emitted twice, and the nested uses
        would multiply the netlist.)"""
        signal = Signal(width, name=f"{name}_p{self.p}_vc{self.v}")
        self.m.d.comb += signal.eq(value)
        return signal

    def per_port(self, flag, vc):
        """A bit per port of ``outputs``: ``flag`` of its VC ``vc`` (0 for the local
        port)."""
        return Cat(flag(o, vc) if o < self.degree else C(0, 1) for o in self.outputs)

    def build(self, contested=None):
        """The choice; returns the request bit per output of ``outputs``, the output
        VC and the class the flit leaves with (``cls``, one up on a wrap link)."""
        free_adaptive, free_escape, choice, choice_vc, escape_roomy = self._candidates(
            contested)
        if contested is not None:
            choice, choice_vc = self._steer(contested, free_adaptive, free_escape,
                                            escape_roomy, choice, choice_vc)
        return self._hold(self.named("choice", self.n, choice), choice_vc)

    def _candidates(self, contested):
        """The free adaptive and escape ports, and the choice among them by congestion:
        a port whose downstream buffer is at least half empty (the escape port first:
        the deterministic route keeps its balance at low load, and then the policy's
        kept escape VC), then any port with a credit, then the escape VC."""
        n, route, state = self.n, self.route, self.selection.out.state
        outputs, degree = self.outputs, self.degree
        self.adaptive_vc = adaptive_vc = self.named(
            "adaptive_vc", self.vc_bits,
            (C(self.config.vcs, self.vc_bits) + route.lane)[:self.vc_bits])
        free_adaptive = self.named("free_adaptive", n, Cat(
            route.offered[k] & ~state(o, adaptive_vc)[0] & state(o, adaptive_vc)[1]
            if o < degree else C(0, 1) for k, o in enumerate(outputs)))
        roomy = self.named("roomy", n, free_adaptive & self.per_port(self.vc_room,
                                                                     adaptive_vc))
        free_escape = self.named("free_escape", n, Cat(
            route.escape[k] & ~state(o, route.vc)[0] & state(o, route.vc)[1]
            & (self.vc_room(o, route.vc) if self.p == degree and o < degree else 1)
            for k, o in enumerate(outputs)))
        escape_roomy = self.policy.escape_roomy(self, roomy)
        if self.p == degree:
            # Injection waits for room: a new packet takes a network VC only while its
            # downstream buffer is at least half empty, so past saturation the packets
            # already in the network keep the links (accepted throughput held).
            free_adaptive = roomy
            if contested is not None:
                roomy, free_escape = self.policy.welcome(self, roomy, free_escape,
                                                         contested, escape_roomy)
                free_adaptive = roomy
        candidates = self.named("candidates", n, Mux(roomy.any(), roomy, free_adaptive))
        first = escape_first(candidates, route.escape, n)
        ample_escape, stay = self.policy.keep_escape(self, roomy, free_adaptive,
                                                     free_escape)
        choice = Mux(stay, ample_escape, Mux(free_adaptive.any(), first, free_escape))
        choice_vc = Mux(stay | ~free_adaptive.any(), route.vc, adaptive_vc)
        return free_adaptive, free_escape, choice, choice_vc, escape_roomy

    def _steer(self, contested, free_adaptive, free_escape, escape_roomy, choice,
               choice_vc):
        """The injection queue steers clear of the outputs a network queue's head
        prefers (the arbiter would most likely grant that one): an uncontested
        adaptive port first (the escape port first among them), then the escape port
        on its escape VC if uncontested, else ``(choice, choice_vc)``; the policy
        refines both."""
        n, route = self.n, self.route
        calm = self.policy.calm(self, free_adaptive & ~contested, escape_roomy)
        calm = self.named("calm", n, calm)
        calm_escape = self.named("calm_escape", n, free_escape & ~contested)
        choice = Mux(calm.any(), escape_first(calm, route.escape, n),
                     Mux(calm_escape.any(), calm_escape, choice))
        choice_vc = Mux(calm.any(), self.adaptive_vc,
                        Mux(calm_escape.any(), route.vc, choice_vc))
        return self.policy.steer(self, choice, choice_vc, calm_escape)

    def _hold(self, choice, choice_vc):
        """The head's choice held for the packet's other flits; the requests, the
        output VC and the class (one up on a wrap link, as the escape VCs': Duato's
        model)."""
        m, n, outputs, degree = self.m, self.n, self.outputs, self.degree
        active, state = self.active, self.selection.out.state
        p, v = self.p, self.v
        held = Signal(n, name=f"held_port_p{p}_vc{v}")
        held_vc = Signal(self.vc_bits, name=f"held_vc_p{p}_vc{v}")
        following = Cat(held[k] & self.fifo.r_rdy & state(o, held_vc)[1]
                        for k, o in enumerate(outputs))
        want = self.named("want", n, Mux(active, following, choice))
        port = self.named("port", n, Mux(active, held, choice))
        with m.If(~active & choice.any()):
            m.d.sync += [held.eq(choice), held_vc.eq(choice_vc)]
        cls = self.frame.class_of(self.head)
        wraps = self.frame.wraps()
        wrapping = [port[k] if wraps[o] is True else port[k] & wraps[o]
                    for k, o in enumerate(outputs) if o < degree and wraps[o] is not False]
        if len(cls) and wrapping:
            wrapped = Cat(wrapping).any()
            cls = Mux(wrapped & (cls != self.config.vc_classes - 1), cls + 1,
                      cls)[:len(cls)]
        return [want[k] for k in range(n)], Mux(active, held_vc, choice_vc), cls
