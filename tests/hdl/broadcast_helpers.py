"""Replicating fabrics for the broadcast tests (drive them with
:func:`tests.hdl.fabric_helpers.run_packets`)."""

from cubefab.hdl.fabric import Fabric, FabricConfig
from cubefab.hdl.modes import MODE_FIELDS, parts
from cubefab.topology.broadcast_deadlock import required_broadcast_vcs


def broadcast_fabric(topology, strapped=False, **router):
    """A :class:`Fabric` of replicating routers (the proven broadcast VCs by default;
    ``strapped``: address-strapped routers)."""
    router.setdefault("broadcast_vcs", required_broadcast_vcs(topology))
    router.setdefault("payload_width", 12)
    modes = parts(**{name: router.pop(name) for name in MODE_FIELDS if name in router})
    config = FabricConfig.for_topology(topology, **router, **modes)
    return Fabric(config, strapped=strapped)
