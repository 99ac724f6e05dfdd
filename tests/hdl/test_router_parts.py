"""The router's parts: elaborate has no side effects, and the escape policy is the
family's."""

import pytest
from amaranth.hdl import Fragment

from cubefab.build.verilog import verilog_text
from cubefab.hdl.config import RouterConfig
from cubefab.hdl.modes import Adaptive, Broadcast, Waypoints
from cubefab.hdl.route import (EscapePolicy, McubeEscape, SeparateEscapePolicy,
                               escape_policy)
from cubefab.hdl.router import Router
from cubefab.topology import Hypercube, Mcube


SETTINGS = [
    {},
    {"hop": "lookahead", "header": "head"},
    {"routing": Adaptive(1)},
    {"routing": Waypoints(1)},
    {"replication": Broadcast(2, "one-port")},
]


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: "-".join(map(str, s.values()))
                         or "default")
def test_elaborate_stores_nothing_on_the_router(settings):
    router = Router(RouterConfig.for_topology(Hypercube(2), **settings), 1)
    Fragment.get(router, None)   # (Amaranth marks an elaboratable used: its only mark)
    before = dict(vars(router))
    Fragment.get(router, None)
    assert vars(router).keys() == before.keys()
    assert all(vars(router)[k] is v for k, v in before.items())


@pytest.mark.parametrize("topology, algorithm, policy", [
    (Hypercube(3), None, EscapePolicy),
    (Mcube(3), "ecube", EscapePolicy),
    (Mcube(3), "mroute", McubeEscape),
])
def test_the_escape_policy_is_the_familys(topology, algorithm, policy):
    assert type(escape_policy(topology, algorithm)) is policy


def test_an_unregistered_family_gets_the_separate_escape_policy(monkeypatch):
    from cubefab.hdl.route import mcube
    monkeypatch.delattr(mcube, "ESCAPE_POLICY")
    assert type(escape_policy(Mcube(3), "mroute")) is SeparateEscapePolicy


def test_only_the_mcube_policy_builds_the_stream_rule():
    def text(topology, algorithm):
        return verilog_text(Router(RouterConfig.for_topology(
            topology, algorithm=algorithm, routing=Adaptive(1), payload_width=8), 0))
    assert "last_dest_p3_vc0" in text(Mcube(3), "mroute")
    assert "last_dest" not in text(Hypercube(3), None)
