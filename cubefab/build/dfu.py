"""The DFU suffix that the OrangeCrab's bootloader wants on a bitstream, as
``dfu-suffix -v VID -p PID -a FILE`` (dfu-util) adds it, for builds without dfu-util.

The suffix (USB DFU 1.1, appendix B) is 16 bytes, little-endian: ``bcdDevice``
(0xffff: any), ``idProduct``, ``idVendor``, ``bcdDFU`` (0x0100), the signature ``UFD``,
its length (16), and a CRC-32 of the file and the suffix's first 12 bytes, kept without
the final inversion (dfu-util's ``dwCRC``).

Run as ``python -m cubefab.build.dfu -v 1209 -p 5af0 -a top.bit``.
"""

import struct
import sys
import zlib


__all__ = ["dfu_suffix", "add_suffix", "main"]


def dfu_suffix(data, vendor, product, device=0xFFFF):
    """The 16-byte DFU suffix of the file contents ``data`` (bytes)."""
    for name, value in (("Vendor", vendor), ("Product", product), ("Device", device)):
        if not isinstance(value, int) or not 0 <= value <= 0xFFFF:
            raise ValueError(f"{name} ID must be an integer in 0..0xffff, not {value!r}")
    head = struct.pack("<HHHH3sB", device, product, vendor, 0x0100, b"UFD", 16)
    crc = zlib.crc32(data + head) ^ 0xFFFFFFFF
    return head + struct.pack("<I", crc)


def add_suffix(path, vendor, product):
    """Append the DFU suffix to the file at ``path``."""
    with open(path, "rb") as f:
        data = f.read()
    with open(path, "ab") as f:
        f.write(dfu_suffix(data, vendor, product))


def main(argv=None):
    """``-v VID -p PID -a FILE`` (hexadecimal IDs), as dfu-suffix takes them."""
    import argparse
    parser = argparse.ArgumentParser(prog="python -m cubefab.build.dfu")
    parser.add_argument("-v", dest="vendor", required=True, type=lambda s: int(s, 16))
    parser.add_argument("-p", dest="product", required=True, type=lambda s: int(s, 16))
    parser.add_argument("-a", dest="file", required=True)
    args = parser.parse_args(argv)
    add_suffix(args.file, args.vendor, args.product)
    return 0


if __name__ == "__main__":
    sys.exit(main())
