"""Draws client-vscode/images/icon.png (128x128 RGBA), the extension's Marketplace icon, with the standard library
only: a rounded dark tile, a `<<` heredoc opener, body lines and the closing marker line. Run it again after a change:
``python3 client-vscode/images/make_icon.py [OUT]`` (default: icon.png beside this file)."""

from __future__ import annotations

import struct
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

SIZE = 128
SAMPLES = 4  # per axis: 16 samples a pixel smooth the edges
Color = tuple[int, int, int]
Shape = Callable[[float, float], bool]

TILE: Color = (30, 41, 59)
CHEVRON: Color = (56, 189, 248)
BODY: Color = (203, 213, 225)
MARKER: Color = (74, 222, 128)


def rounded_rect(x0: float, y0: float, x1: float, y1: float, r: float) -> Shape:
    def inside(x: float, y: float) -> bool:
        cx = min(max(x, x0 + r), x1 - r)
        cy = min(max(y, y0 + r), y1 - r)
        return x0 <= x <= x1 and y0 <= y <= y1 and (x - cx) ** 2 + (y - cy) ** 2 <= r * r

    return inside


def segment(ax: float, ay: float, bx: float, by: float, width: float) -> Shape:
    """A stroke with round caps from (ax, ay) to (bx, by)."""
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy

    def inside(x: float, y: float) -> bool:
        t = max(0.0, min(1.0, ((x - ax) * dx + (y - ay) * dy) / length2))
        px, py = ax + t * dx - x, ay + t * dy - y
        return px * px + py * py <= (width / 2) ** 2

    return inside


def chevron(tip_x: float, mid_y: float, reach: float, half_height: float, width: float) -> list[Shape]:
    """A `<` whose point is at (tip_x, mid_y)."""
    return [
        segment(tip_x + reach, mid_y - half_height, tip_x, mid_y, width),
        segment(tip_x, mid_y, tip_x + reach, mid_y + half_height, width),
    ]


LAYERS: list[tuple[Color, list[Shape]]] = [
    (TILE, [rounded_rect(4, 4, 124, 124, 24)]),
    (CHEVRON, chevron(22, 38, 18, 15, 9) + chevron(46, 38, 18, 15, 9)),
    (BODY, [segment(28, 66, 100, 66, 8), segment(28, 82, 84, 82, 8)]),
    (MARKER, [segment(22, 102, 60, 102, 9)]),
]


def pixel(px: int, py: int) -> tuple[int, int, int, int]:
    """Premultiplied average of the supersamples, returned as straight RGBA."""
    r = g = b = a = 0.0
    for sy in range(SAMPLES):
        for sx in range(SAMPLES):
            x = px + (sx + 0.5) / SAMPLES
            y = py + (sy + 0.5) / SAMPLES
            color: Color | None = None
            for layer_color, shapes in LAYERS:
                if any(shape(x, y) for shape in shapes):
                    color = layer_color
            if color is not None:
                r, g, b, a = r + color[0], g + color[1], b + color[2], a + 1
    if a == 0:
        return (0, 0, 0, 0)
    return (round(r / a), round(g / a), round(b / a), round(255 * a / SAMPLES**2))


def png(width: int, height: int, rows: list[bytes]) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\x00" + row for row in rows)
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def main() -> None:
    rows = [b"".join(bytes(pixel(x, y)) for x in range(SIZE)) for y in range(SIZE)]
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent / "icon.png"
    out.write_bytes(png(SIZE, SIZE, rows))
    print(out)


if __name__ == "__main__":
    main()
