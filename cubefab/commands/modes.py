"""``cubefab modes``: which combinations of routing, hop and replication the router
builds, and why the others are refused (:func:`cubefab.hdl.modes.combinations`)."""

from ..cli import emit, format_table


__all__ = ["register"]


def register(sub):
    parser = sub.add_parser("modes", help="the router's modes: which combinations of "
                            "routing, hop and replication it builds, and why not the others",
                            description="Every combination of a routing (deterministic, "
                            "adaptive, waypoint), a hop (buffered, lookahead) and a "
                            "replication (none, all-port or one-port broadcast, subcube or "
                            "vector multicast): built, or refused with the reason.")
    parser.add_argument("--json", action="store_true",
                        help="one JSON document instead of the table (default: the table)")
    parser.set_defaults(_handler=_modes)


def _modes(args):
    from ..hdl.modes import combinations
    rows = combinations()
    built = sum(row["built"] for row in rows)
    table = format_table(["routing", "hop", "replication", "built"],
                         [[r["routing"], r["hop"], r["replication"],
                           "yes" if r["built"] else f"no: {r['reason']}"] for r in rows])
    emit(args, {"combinations": rows, "built": built, "total": len(rows)},
         f"{table}\n{built} of {len(rows)} combinations built")
