"""The router options, each declared once (cubefab.hdl.options): the checks of
RouterConfig and its parts, and the one serialisation, come from the declarations."""

import pytest

from cubefab.hdl.config import OptionError, RouterConfig
from cubefab.hdl.modes import REPLICATIONS, ROUTINGS, Adaptive, refusal
from cubefab.hdl.options import HOPS, OPTIONS, option_of
from cubefab.topology import Hypercube


@pytest.mark.parametrize("settings, field", [
    ({"depth": 0}, "depth"), ({"vcs_per_class": 3}, "vcs_per_class"),
    ({"vcs": 3, "vcs_per_class": 2}, "vcs"), ({"hop": "fast"}, "hop")])
def test_a_range_error_names_its_field(settings, field):
    with pytest.raises(OptionError) as error:
        RouterConfig.for_topology(Hypercube(2), **settings)
    assert error.value.field == field


def test_a_range_error_is_worded_in_the_names_a_front_end_gives():
    with pytest.raises(OptionError) as error:
        RouterConfig.for_topology(Hypercube(2), vcs=3, vcs_per_class=2)
    assert str(error.value) == ("Number of virtual channels must be a multiple of "
                                "vcs_per_class = 2, not 3")
    assert error.value.words(lambda field: OPTIONS[field].flag) == (
        "--vcs must be a multiple of --vcs-per-class = 2, not 3")
    with pytest.raises(OptionError) as error:
        Adaptive(3)
    assert error.value.field == "adaptive_vcs" and option_of("adaptive_vcs") == "--adaptive"


MODES = [(routing, hop, replication) for routing in ROUTINGS for hop in HOPS
         for replication in REPLICATIONS if refusal(routing, hop, replication) is None]


@pytest.mark.parametrize("routing, hop, replication", MODES,
                         ids=[f"{r.kind}-{h}-{p.kind}" for r, h, p in MODES])
def test_as_dict_describes_the_router_whole(routing, hop, replication):
    config = RouterConfig.for_topology(Hypercube(2), routing=routing, hop=hop,
                                       replication=replication, buffer="registers")
    fields = config.as_dict()
    assert set(fields) <= set(OPTIONS) | {"buffer_auto"}
    assert RouterConfig.from_dict(Hypercube(2), fields) == config
