"""``cubefab board TOPO ... --board B -o DIR``: a bitstream of the self-checking fabric
for an iCE40 (icebreaker, icestick), ECP5 (ulx3s, orangecrab) or Gowin (tang-nano-9k)
board, its state on the board's LEDs."""

from ..cli import (add_json_option, add_topology_command, emit, format_table, int_range, fraction,
                   add_force_option, input_errors)
from .. import files
from ..build.board import (BOARDS, BOARD_TOOLS, build_bitstream, build_stages,
                           selfcheck_board_top)
from ..tools.devices import DEVICES
from ..hdl.config import BOARD_DEFAULTS
from ..hdl.selfcheck import SelfCheckConfig
from .limits import MAX_QUEUE_DEPTH, MAX_SEED, check_hardware
from .fpga import check_tools
from .router_options import add_router_options, router_config
from .endpoint_options import add_interface_options, endpoint_interface, endpoint_parameters
from ..progress import Stages
from .tool_runs import add_timeout_option, deadline, tool_errors


__all__ = ["register"]


def _options(parser):
    parser.add_argument("--board", required=True, choices=sorted(BOARDS),
                        help="; ".join(f"{name} ({DEVICES[board.device].part})"
                                       for name, board in BOARDS.items()))
    parser.add_argument("-o", "--output", required=True, metavar="DIR",
                        help="build directory (bitstream DIR/top.bin (iCE40), top.bit "
                             "(ECP5) or top.fs (Gowin); logs top.rpt, top.tim)")
    add_router_options(parser, BOARD_DEFAULTS, ("algorithm", "adaptive"), min_payload=2,
                       payload_help="the router verilog, synth and sim build; a 3-bit "
                                    "sequence number, a 5-bit timestamp and check bits; "
                                    "4 gives a 3-bit sequence number and a 1-bit "
                                    "timestamp")
    parser.add_argument("--queue-depth", type=int_range(1, MAX_QUEUE_DEPTH), default=2,
                        metavar="N",
                        help="packets each traffic generator's source queue holds "
                             "(default 2)")
    parser.add_argument("--rate", type=fraction, default=0.25, metavar="R",
                        help="packets created per node per cycle (default 0.25)")
    parser.add_argument("--seed", type=int_range(0, MAX_SEED), default=1, metavar="S",
                        help="traffic generators' run seed (default 1)")
    # the generators' packets through AXI4-Stream endpoints (docs/endpoints.md)
    add_interface_options(parser, default_max_beats=None)
    add_timeout_option(parser)
    add_json_option(parser)
    add_force_option(parser)


def _board(args, topology):
    board = BOARDS[args.board]
    endpoint_parameters(args)          # the options' own errors before the tools'
    check_tools(*BOARD_TOOLS[type(DEVICES[board.device].family)])
    files.check_directory(args.output)
    config = router_config(args, topology, routers=topology.num_nodes,
                           **DEVICES[board.device].auto_settings)
    # the sequence number (loss, duplication and reordering checks) before the
    # timestamp (latency, which no lamp shows); at least one timestamp bit
    sequence_bits = max(0, min(3, config.payload_width - 1))
    timestamp_bits = max(1, min(5, config.payload_width - sequence_bits))
    # the generators and checkers about double each router
    elaboration = check_hardware(f"the {topology.label} self-checking fabric", config,
                                 2 * topology.num_nodes)
    interface = endpoint_interface(endpoint_parameters(args, default_max_beats=None),
                                   config, 1, "the board's packets")
    with input_errors("--interface axi-stream: " if interface else ""):
        design = SelfCheckConfig(config, queue_depth=args.queue_depth,
                                 timestamp_bits=timestamp_bits, sequence_bits=sequence_bits,
                                 interface=interface)
    with input_errors():
        top = selfcheck_board_top(design, args.board, rate=args.rate, seed=args.seed)
    files.claim_directory(args.output)
    stages = Stages(f"the {topology.label} self-checking fabric for {args.board}",
                    build_stages(args.board, elaboration))
    with tool_errors(args, lambda exc: f"{topology.label} on {exc}"):
        result = build_bitstream(top, args.board, args.output, deadline=deadline(args),
                                 stages=stages)
    document = dict(result, stages=stages.summary(), topology=topology.label, nodes=topology.num_nodes,
                    payload_width=config.payload_width, sequence_bits=sequence_bits,
                    timestamp_bits=timestamp_bits, depth=config.depth,
                    queue_depth=args.queue_depth, vcs=top.design.config.router.vcs,
                    adaptive_vcs=config.adaptive_vcs, rate=args.rate,
                    seed=args.seed,
                    **({"interface": "axi-stream",
                        "data_width": top.design.config.interface.data_width,
                        "max_beats": top.design.config.interface.max_beats}
                       if interface else {}),
                    leds={"fail": board.fail_led, "pass": board.pass_led,
                          "activity": list(board.activity_leds)},
                    router=top.design.config.router.as_dict())
    stall = 2 ** 24 / (result["clock_mhz"] * 1e6)     # StatusLeds' watchdog
    lamps = (f"LED {board.fail_led}: failure (an error, or no delivery for {stall:.1f} s); "
             f"LED {board.pass_led}: passing"
             + (" (blinks with deliveries)" if not board.activity_leds else
                f"; LEDs {', '.join(map(str, board.activity_leds))}: delivery count"))
    table = format_table(["design", "board", "logic cells", "RAM", "Fmax MHz", "clock MHz"],
                         [[f"{topology.label} self-checking fabric"
                           + (" with AXI4-Stream endpoints" if interface else ""), args.board,
                           f"{result['logic_cells']}/{result['logic_cells_available']}",
                           result["ram"], result["fmax_mhz"], result["clock_mhz"]]])
    emit(args, document, f"{table}\nwrote {result['bitstream']}\n{lamps}\n"
                         f"load it with: {result['load']}")


def register(sub):
    add_topology_command(sub, "board", "build a bitstream of the self-checking fabric for "
                         "an iCE40, ECP5 or Gowin board (LEDs show pass/fail and activity)",
                         _board, _options)
