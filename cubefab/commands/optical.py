"""``cubefab optical hypercube -n N`` and ``cubefab optical dlh -m M -d D``: the 3-D
free-space optical layout (Plane_L/Plane_R placement and shift rule) of dlh.txt section V,
validated, as text, ``--json`` or a ``--plot``."""

from ..cli import (CliError, add_force_option, add_json_option, add_plot_option,
                   add_topology_command, check_plot_option, emit, format_table,
                   input_errors, parse_address, plot_written)
from .. import files
from ..optical import hypercube_layout, dlh_layout, validate, EMPTY
from ..optical.hypercube import CONSTRUCTIONS
from ..optical.dlh import RINGS, GAPS


__all__ = ["register", "layout_document", "layout_text"]

#: Planes wider than this are not printed in the text output.
PRINT_COLS = 32


def register(sub):
    add_topology_command(sub, "optical", "3-D space-invariant optical layout: Plane_L/Plane_R "
                         "placement, shift rule and its validation (dlh.txt section V)",
                         _optical, _options, families=("hypercube", "dlh"))


def _options(parser):
    family = parser.prog.split()[-1]
    if family == "hypercube":
        parser.add_argument("--construction", choices=CONSTRUCTIONS, default="cubefab",
                            help="recipe: cubefab (valid for every n, default), figure4 "
                                 "(Figure 4's rule without gaps), paper (the text's steps "
                                 "as printed)")
    else:
        parser.add_argument("--ring", choices=RINGS, default="paper",
                            help="block arrangement: paper (2 x 2m, Figure 6, default) or "
                                 "folded (no shift depends on m)")
        parser.add_argument("--gaps", choices=GAPS, default="fit",
                            help="empty rows/columns between blocks: fit (default) or the "
                                 "paper's values and formula")
    add_plot_option(parser, "draw both planes")
    parser.add_argument("--highlight", type=parse_address, default=None, metavar="A",
                        help="in the plot, outline node A and its links")
    add_json_option(parser)
    add_force_option(parser)


def layout_document(layout, validation):
    """The ``--json`` document of a layout and its validation."""
    doc = layout.to_dict()
    doc.update({"spurious": validation.spurious, "valid": validation.valid,
                "validation": validation.to_dict()})
    return doc


def _amounts(values):
    return " ".join(f"±{v}" for v in values if v > 0) or "none"


def _grid(grid):
    width = max(len(str(int(grid.max()))), 1)
    return "\n".join("  " + " ".join(".".rjust(width) if a == EMPTY else str(int(a)).rjust(width)
                                     for a in row) for row in grid)


def layout_text(layout, validation):
    """Human-readable report of a layout and its validation."""
    axial = all(dr == 0 or dc == 0 for dr, dc in layout.shifts)
    lines = [f"{layout.label}: two planes of {layout.plane_rows} x {layout.plane_cols} cells, "
             f"fill factor {layout.fill_factor:.4f}",
             f"shift rule: {layout.images} images (fan-out), largest shift "
             f"{layout.largest_shift} cells"]
    if axial:
        lines.append(f"  row shifts    {_amounts(layout.row_shifts)}")
        lines.append(f"  column shifts {_amounts(layout.col_shifts)}")
    else:
        lines.append("  shifts " + " ".join(f"({dr},{dc})" for dr, dc in layout.shifts))
    info = layout.info
    if "wrap_shifts" in info:
        rows = [["hypercube", " ".join(f"({a},{b})" for a, b in info["hypercube_shifts"])],
                ["ring-to-ring", " ".join(f"({a},{b})" for a, b in info["ring_shifts"])],
                ["ring neighbour", " ".join(f"({a},{b})" for a, b in info["neighbour_shifts"])],
                ["wrap-around", " ".join(f"({a},{b})" for a, b in info["wrap_shifts"]) or "-"]]
        lines += ["", format_table(["links", "shifts (dr,dc)"], rows), "",
                  f"blocks of {info['block_rows']} x {info['block_cols']} cells in a "
                  f"{info['block_matrix'][0]} x {info['block_matrix'][1]} matrix, gaps r = {info['r']}, "
                  f"c = {info['c']} ({info['gaps']}; fit {info['fit_r']}, {info['fit_c']}), "
                  f"strides {info['row_stride']}, {info['col_stride']}"]
        if "paper_ring_shift" in info:
            lines.append(f"paper's amounts: 2D_r(n)-D_r(n-3) = {info['paper_ring_shift']}, "
                         f"2D_c(n)-D_c(n-3) = {info['paper_neighbour_shift']}, wrap "
                         f"{info['paper_wrap_shift']}")
    if layout.plane_cols <= PRINT_COLS:
        lines += ["", "Plane_L:", _grid(layout.plane_l), "Plane_R:", _grid(layout.plane_r)]
    else:
        lines += ["", f"(planes of {layout.plane_cols} columns not printed: use --json or "
                      f"--plot)"]
    v = validation
    lines += ["", f"validation: {v.summary()}",
              f"  links inside a plane {v.same_plane_links}, links outside the rule "
              f"{v.uncovered_links}, spurious images {v.spurious}, neighbours reached per "
              f"node {v.reached_min}..{v.reached_max} of {v.degree}"]
    for src, shift, dst in v.spurious_examples[:3]:
        lines.append(f"  e.g. node {src} shifted by {tuple(shift)} lands on {dst}")
    return "\n".join(lines)


def _optical(args, topology):
    if args.highlight is not None and not topology.is_node(args.highlight):
        raise CliError(f"--highlight {args.highlight} is not a node of {topology.label}")
    if args.plot is not None:
        check_plot_option(args.plot)
    with input_errors():
        if topology.name == "hypercube":
            layout = hypercube_layout(topology.n, args.construction)
        else:
            layout = dlh_layout(topology.m, topology.d, ring=args.ring, gaps=args.gaps)
    validation = validate(layout)
    doc = layout_document(layout, validation)
    text = layout_text(layout, validation)
    if topology.name == "dlh":
        growth = _growth(layout, args)
        doc["growth"] = growth
        if growth is not None:
            changed = " ".join(f"({a},{b})" for a, b in growth["changed"]) or "none"
            text += (f"\ngrowth to DLH({topology.m + 1},{topology.d}): "
                     f"{growth['images_next']} images (now {layout.images}); shifts that change: "
                     f"{changed}")
    if args.plot:
        from ..optical.plot import plot_layout
        with files.output_path(args.plot) as tmp:
            plot_layout(layout, tmp, highlight=args.highlight)
        doc["plot"] = args.plot
        text += "\n" + plot_written(args.plot)
    emit(args, doc, text)
    return 0 if validation.valid else 1     # an invalid layout is a failed check


def _growth(layout, args):
    """What adding one ring position (m -> m + 1) changes in the shift rule."""
    dlh = layout.topology
    try:
        bigger = dlh_layout(dlh.m + 1, dlh.d, ring=args.ring, gaps=args.gaps)
    except ValueError:
        return None
    return {"images_next": bigger.images,
            "changed": [list(s) for s in sorted(set(layout.shifts) - set(bigger.shifts))],
            "added": [list(s) for s in sorted(set(bigger.shifts) - set(layout.shifts))]}
