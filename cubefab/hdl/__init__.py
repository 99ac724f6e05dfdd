"""Amaranth components: route units, routers, fabrics, traffic generators and checkers."""
