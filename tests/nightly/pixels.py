#!/usr/bin/env python3
"""pixels.py PNG R G B [TOL]: the most pixels within TOL of the colour R G B
in any one column of an 8-bit, non-interlaced PNG (what Chromium's
--screenshot writes): a vertical line of that colour gives a tall count,
text and dots a short one. Standard library only: zlib and the PNG filter
rules."""
import struct
import sys
import zlib


def rows(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit("%s: not a PNG" % path)
    pos, idat, w, h, ctype = 8, b"", 0, 0, 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or interlace or ctype not in (2, 6):
                raise SystemExit("%s: only 8-bit RGB/RGBA, not interlaced" % path)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    bpp = 4 if ctype == 6 else 3
    raw, stride, prev = zlib.decompress(idat), w * bpp, bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        yield line, bpp


def main():
    path, r, g, b = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    tol = int(sys.argv[5]) if len(sys.argv) > 5 else 40
    cols = {}
    for line, bpp in rows(path):
        for i in range(0, len(line), bpp):
            if abs(line[i] - r) <= tol and abs(line[i + 1] - g) <= tol and abs(line[i + 2] - b) <= tol:
                cols[i // bpp] = cols.get(i // bpp, 0) + 1
    print(max(cols.values()) if cols else 0)


main()
