"""VC choice: the VC a flit takes on the next link, from its class, the port it
leaves through and its flow."""

from amaranth.hdl import Cat, Mux, Signal

from .frame import flow_lane


__all__ = ["choose_vc"]


def choose_vc(frame, p, flit, port, enter, vc_class, phase=None):
    """Drive ``enter.vc``, the VC on the next link of ``flit`` arriving on input port
    ``p`` in class ``vc_class`` and leaving through ``port``: its class by the
    VC-assignment function (one class up on a wrap link, ``wraps(here, port)``, up to
    the last), the VC within the class by the flow (flow_lane: XOR-folded
    ``src ^ dest``); with ``phase`` (waypoint routing) the class is that of the
    phase's set, ``phase * classes + class``."""
    m, config = frame.m, frame.config
    classes, lanes = config.vc_classes, frame.lanes()
    wraps = frame.wraps()
    next_class = Signal(len(vc_class), name=f"next_class_p{p}")
    m.d.comb += next_class.eq(vc_class)
    with m.Switch(port):
        for o in range(frame.degree):
            if wraps[o] is not False and classes > 1:  # a strap or a constant True
                with m.Case(o):
                    m.d.comb += next_class.eq(Mux(wraps[o] & (vc_class != classes - 1),
                                                  vc_class + 1, vc_class))
    if phase is not None:
        next_class = (next_class + phase * classes)[:len(enter.vc) - lanes]
    if lanes:
        m.d.comb += enter.vc.eq(Cat(flow_lane(flit, lanes), next_class))
    else:
        m.d.comb += enter.vc.eq(next_class)
