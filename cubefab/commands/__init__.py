"""Sub-commands of the ``cubefab`` command line (see :mod:`cubefab.cli`)."""
