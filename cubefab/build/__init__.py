"""Verilog emission, synthesis and place-and-route reports, board builds.

Generated files go to ``./build/`` unless the caller names another directory.
"""
