"""cubefab: hypercube-family interconnects from paper to verified hardware."""

__version__ = "0.1.0"
