"""Builders of hostile and broken files. Each writes one file and returns its path; nothing is
downloaded or copied, so every test shows exactly what its input is."""
from __future__ import annotations

import zipfile
import zlib
from pathlib import Path

TEXT_OPS = b"BT /F1 12 Tf 72 700 Td (%s) Tj ET\n"


def pdf_bytes(objects: list[bytes]) -> bytes:
    """A PDF with the given objects (1-based: object 1 must be the catalog) and a correct xref."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def _one_page(stream: bytes, stream_dict: bytes = b"", catalog_extra: bytes = b"") -> bytes:
    return pdf_bytes([
        b"<< /Type /Catalog /Pages 2 0 R " + catalog_extra + b">>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d %s>>\nstream\n" % (len(stream), stream_dict) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ])


def text_pdf(path: Path, text: str) -> Path:
    path.write_bytes(_one_page(TEXT_OPS % text.encode("latin-1")))
    return path


def flate_bomb_pdf(path: Path, text: str, inflated_mb: int) -> Path:
    """One page whose content stream is a line of text and then `inflated_mb` MB of blanks,
    FlateDecode-compressed about 1000:1 (a 600 MB stream is a 0.6 MB file). A full flush makes
    each 16 MB block self-contained, so one compressed block is repeated instead of recomputed."""
    first, blanks, count = TEXT_OPS % text.encode("latin-1"), b" " * 2**24, inflated_mb // 16
    packer = zlib.compressobj(9)
    head = packer.compress(first) + packer.flush(zlib.Z_FULL_FLUSH)
    block = packer.compress(blanks) + packer.flush(zlib.Z_FULL_FLUSH)
    checksum = zlib.adler32(first)
    for _ in range(count):
        checksum = zlib.adler32(blanks, checksum)
    ending = packer.flush()[:-4] + checksum.to_bytes(4, "big")  # the zlib trailer: adler32 of it all
    stream = head + block * count + ending
    path.write_bytes(_one_page(stream, b"/Filter /FlateDecode "))
    return path


def nested_pdf(path: Path, text: str, depth: int) -> Path:
    """A catalog entry nested `depth` arrays deep: recursion limits of parsers meet it first."""
    nest = b"/Nest " + b"[" * depth + b"]" * depth + b" "
    path.write_bytes(_one_page(TEXT_OPS % text.encode("latin-1"), catalog_extra=nest))
    return path


def blank_pages_pdf(path: Path, pages: int) -> Path:
    from pypdf import PdfWriter

    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(width=612, height=792)
    with path.open("wb") as fh:
        writer.write(fh)
    return path


# --- XLSX: written part by part with zipfile, so a million rows cost seconds, not openpyxl's minutes

_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/xl/workbook.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
    '<Override PartName="/xl/worksheets/sheet1.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
    '</Types>'
)
_ROOT_RELS = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
    'officeDocument" Target="xl/workbook.xml"/></Relationships>'
)
_WORKBOOK = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
    '<sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>'
)
_WORKBOOK_RELS = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
    'worksheet" Target="worksheets/sheet1.xml"/></Relationships>'
)
SHEET_HEAD = (b'<?xml version="1.0" encoding="UTF-8"?>'
              b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>')
SHEET_TAIL = b"</sheetData></worksheet>"


def _row(number: int, cells: list[str | int]) -> str:
    out = []
    for column, value in zip("ABCDEFGH", cells):
        if isinstance(value, int):
            out.append(f'<c r="{column}{number}"><v>{value}</v></c>')
        else:
            out.append(f'<c r="{column}{number}" t="inlineStr"><is><t>{value}</t></is></c>')
    return f'<row r="{number}">{"".join(out)}</row>'


_DATA_ROW = ('<row r="%d"><c r="A%d" t="inlineStr"><is><t>%s%d</t></is></c>'
             '<c r="B%d"><v>%d</v></c><c r="C%d"><v>%d</v></c></row>')


def _skeleton(archive: zipfile.ZipFile) -> None:
    archive.writestr("[Content_Types].xml", _CONTENT_TYPES)
    archive.writestr("_rels/.rels", _ROOT_RELS)
    archive.writestr("xl/workbook.xml", _WORKBOOK)
    archive.writestr("xl/_rels/workbook.xml.rels", _WORKBOOK_RELS)


def xlsx_rows(path: Path, rows: int, label: str = "item", dimension: bool = True) -> Path:
    """A sheet with a header (Item | Quantity | Price) and `rows` data rows, streamed. Excel writes
    a <dimension> element; without it openpyxl scans the whole sheet before the first row."""
    head = SHEET_HEAD
    if dimension:
        head = head.replace(b"<sheetData>", b'<dimension ref="A1:C%d"/><sheetData>' % (rows + 1))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        _skeleton(archive)
        with archive.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as sheet:
            sheet.write(head + _row(1, ["Item", "Quantity", "Price"]).encode())
            batch = 50_000
            for start in range(2, rows + 2, batch):
                sheet.write("".join(
                    _DATA_ROW % (n, n, label, n, n, n % 97, n, n % 1013) for n in range(start, min(start + batch, rows + 2))
                ).encode())
            sheet.write(SHEET_TAIL)
    return path


def zip_bomb_xlsx(path: Path, inflated_mb: int) -> Path:
    """A well-formed workbook whose one sheet inflates to `inflated_mb` MB of whitespace."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        _skeleton(archive)
        with archive.open("xl/worksheets/sheet1.xml", "w") as sheet:
            sheet.write(SHEET_HEAD + _row(1, ["Item", "Quantity"]).encode())
            blanks = b" " * 2**20
            for _ in range(inflated_mb):
                sheet.write(blanks)
            sheet.write(SHEET_TAIL)
    return path


def forged_size_xlsx(path: Path, real_mb: int) -> Path:
    """A zip bomb that lies: its central directory declares the sheet 1 KB, its data inflates to
    `real_mb` MB. (Readers take a member's size from the central directory.)"""
    zip_bomb_xlsx(path, real_mb)
    data = bytearray(path.read_bytes())
    name = b"xl/worksheets/sheet1.xml"
    entry = data.find(b"PK\x01\x02")
    while entry != -1:
        name_length = int.from_bytes(data[entry + 28:entry + 30], "little")
        if data[entry + 46:entry + 46 + name_length] == name:
            data[entry + 24:entry + 28] = (1024).to_bytes(4, "little")
            path.write_bytes(bytes(data))
            return path
        entry = data.find(b"PK\x01\x02", entry + 4)
    raise AssertionError("the sheet's central directory entry was not found")


def entity_bomb_xlsx(path: Path) -> Path:
    """'Billion laughs' in the sheet XML: nine levels of entities that each expand ten times."""
    entities = '<!ENTITY l0 "lol">' + "".join(
        f'<!ENTITY l{i} "{("&l" + str(i - 1) + ";") * 10}">' for i in range(1, 10)
    )
    sheet = (
        f'<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE worksheet [{entities}]>'
        '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
        + _row(1, ["Item", "Quantity"])
        + '<row r="2"><c r="A2" t="inlineStr"><is><t>&l9;</t></is></c><c r="B2"><v>1</v></c></row>'
        '</sheetData></worksheet>'
    )
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        _skeleton(archive)
        archive.writestr("xl/worksheets/sheet1.xml", sheet)
    return path


def png_bomb(path: Path, side: int) -> Path:
    """A `side` x `side` black 1-bit PNG: 900 megapixels at 30,000, in about 100 KB."""
    import struct

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    packer = zlib.compressobj(9)
    row = b"\x00" * (1 + (side + 7) // 8)  # filter byte, then the row's bits
    pixels = b"".join(packer.compress(row) for _ in range(side)) + packer.flush()
    header = struct.pack(">IIBBBBB", side, side, 1, 0, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b""))
    return path
