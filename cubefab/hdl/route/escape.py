"""Escape policies of adaptive routers: how the output choice of an adaptive router
(:mod:`cubefab.hdl.router.adaptive`) treats the escape routing beside the adaptive
ports.

A policy's methods take the choice being built (``choice``, an
:class:`~cubefab.hdl.router.adaptive.QueueChoice`: the input queue's buffered route,
its named-signal helper ``named``, the per-port flags ``per_port``, ``vc_room`` and
``vc_ample``) and return the values they add, adding any logic to ``choice.m``.

- :class:`EscapePolicy` (the default): the escape port is one of the adaptive ports
  (Duato's protocol over a minimal escape routing);
- :class:`SeparateEscapePolicy`: the escape port is no adaptive one
  (:func:`~cubefab.topology.adaptive.needs_adaptive`);
- :class:`~cubefab.hdl.route.mcube.McubeEscape`: the Mcube's Mroute over its e-cube
  escape (the stream rule).
"""

from amaranth.hdl import C, Mux


__all__ = ["EscapePolicy", "SeparateEscapePolicy"]


class EscapePolicy:
    """The escape port is one of the adaptive ports: the deterministic route is kept
    while it has room, and the injection queue yields ports that a network queue's
    head prefers."""

    #: bool: the escape port is one of the offered (adaptive) ports
    escape_offered = True

    def ample_level(self, depth):
        """Credits at which an output VC counts as nearly empty (``vc_ample``): at
        least three quarters of ``depth``."""
        return depth - depth // 4

    def escape_roomy(self, choice, roomy):
        """The injection queue's escape port has room on its adaptive VC."""
        return choice.named("escape_roomy", 1, (roomy & choice.route.escape).any())

    def welcome(self, choice, roomy, free_escape, contested, escape_roomy):
        """Of an injection queue's ``roomy`` adaptive ports and free escape ports, those
        it may take beside a network queue's heads (``contested``: the ports they
        prefer): it yields an output that one prefers, unless its VC there is nearly
        empty (at least three quarters: the transit head is then likely granted
        first, and the link has room for both); its escape VC there only while the
        escape port's adaptive VC is roomy too. Returns ``(roomy, free_escape)``."""
        n = choice.n
        roomy = choice.named("welcome", n, roomy & ~(
            contested & ~choice.per_port(choice.vc_ample, choice.adaptive_vc)))
        free_escape = choice.named("welcome_escape", n, free_escape & ~(
            contested & ~(escape_roomy.replicate(n)
                          & choice.per_port(choice.vc_ample, choice.route.vc))))
        return roomy, free_escape

    def keep_escape(self, choice, roomy, free_adaptive, free_escape):
        """The deterministic route kept: the escape VC, nearly empty, before another
        port. Returns ``(ample_escape, stay)``: the escape ports to take, and whether
        to take them first."""
        route = choice.route
        ample_escape = choice.named("ample_escape", choice.n, free_escape
                                    & route.offered[:choice.n]
                                    & choice.per_port(choice.vc_ample, route.vc))
        stay = choice.named("stay", 1, ~(roomy & route.escape).any() & ample_escape.any())
        return ample_escape, stay

    def calm(self, choice, calm, escape_roomy):
        """The uncontested adaptive ports an injection queue takes first (``calm``):
        it leaves a roomy escape port only for a port whose adaptive VC is nearly
        empty: where every route is as busy (a permutation at saturation) leaving the
        deterministic route gains nothing and costs throughput."""
        n = choice.n
        return calm & Mux(escape_roomy,
                          choice.route.escape | choice.per_port(choice.vc_ample,
                                                                choice.adaptive_vc),
                          C((1 << n) - 1, n))

    def steer(self, choice, port, port_vc, calm_escape):
        """The injection queue's final choice of port and VC from ``(port,
        port_vc)`` (``calm_escape``: its uncontested free escape ports): unchanged."""
        return port, port_vc


class SeparateEscapePolicy(EscapePolicy):
    """The escape port is no adaptive one: a head keeps to an offered port only while
    its adaptive VC holds at most one flit downstream; else it takes its escape VC
    while that is at least half empty; else as :class:`EscapePolicy` (a roomy offered
    port, any offered port with a credit, then the escape VC). A head that arrived on
    an escape VC (a network queue of one) stays on the escape routing while that VC
    is at least half empty, before the offered ports: a packet that left the adaptive
    routing's crowded links follows the escape routing on, rather than rejoining
    adaptive routes from the middle of an escape one."""

    escape_offered = False

    def ample_level(self, depth):
        """At most one flit downstream."""
        return depth - 1

    def escape_roomy(self, choice, roomy):
        return None

    def welcome(self, choice, roomy, free_escape, contested, escape_roomy):
        return roomy, free_escape

    def keep_escape(self, choice, roomy, free_adaptive, free_escape):
        route = choice.route
        ample_escape = choice.named("roomy_escape", choice.n,
                                    free_escape & choice.per_port(choice.vc_room, route.vc))
        clear = choice.named("clear", choice.n, free_adaptive
                             & choice.per_port(choice.vc_ample, choice.adaptive_vc))
        escaped = choice.p < choice.degree and choice.v < choice.config.vcs
        stay = choice.named("stay", 1, (C(1, 1) if escaped else ~clear.any())
                            & ample_escape.any())
        return ample_escape, stay

    def calm(self, choice, calm, escape_roomy):
        return calm
