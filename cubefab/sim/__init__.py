"""Simulation: traffic, harnesses, engines and performance analysis of fabrics."""
