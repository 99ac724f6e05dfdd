"""Replicating fabrics for the broadcast tests (drive them with
:func:`tests.hdl.fabric_helpers.run_packets`)."""

from cubefab.hdl.fabric import Fabric, FabricConfig
from cubefab.topology.broadcast_deadlock import required_broadcast_vcs


def broadcast_fabric(topology, strapped=False, **router):
    """A :class:`Fabric` of replicating routers (the proven broadcast VCs by default;
    ``strapped``: address-strapped routers)."""
    router.setdefault("broadcast_vcs", required_broadcast_vcs(topology))
    router.setdefault("payload_width", 12)
    config = FabricConfig.for_topology(topology, **router)
    return Fabric(config, strapped=strapped)
