"""Office files turned hostile: DTD entity attacks, zip bombs, archives with many members."""

from __future__ import annotations

import io
import zipfile

# "Billion laughs": ten levels of ten references each expand to 10**9 "lol"s if resolved.
_LAUGHS = "".join(f'<!ENTITY lol{i} "{("&lol" + str(i - 1) + ";") * 10}">' for i in range(1, 10))
BILLION_LAUGHS = (f'<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol0 "lol">{_LAUGHS}]>\n', "&lol9;")
# XXE: an external entity that would pull a local file into the document.
EXTERNAL_ENTITY = ('<?xml version="1.0"?>\n<!DOCTYPE d [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n', "&xxe;")


def rewrite_zip(data: bytes, replacements: dict[str, bytes | None]) -> bytes:
    """Copy a zip, replacing or adding the members named in `replacements` (None deletes one)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            if info.filename not in replacements:
                target.writestr(info.filename, source.read(info))
        for member, content in replacements.items():
            if content is not None:
                target.writestr(member, content)
    return out.getvalue()


def with_doctype(data: bytes, member: str, attack: tuple[str, str] = BILLION_LAUGHS, encoding: str = "utf-8") -> bytes:
    """The Office file `data` with a DTD attack (prolog, entity reference) put into `member`."""
    prolog, reference = attack
    prolog = prolog.replace('version="1.0"', f'version="1.0" encoding="{encoding.upper()}"')
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        original = archive.read(member).decode("utf-8")
    body = original[original.index("?>") + 2 :] if original.startswith("<?xml") else original
    # Reference the entity inside the first text run so that a resolving parser would expand it.
    body = body.replace("</w:t>", f"{reference}</w:t>", 1).replace("</a:t>", f"{reference}</a:t>", 1)
    return rewrite_zip(data, {member: (prolog + body).encode(encoding)})


def zip_bomb(data: bytes, member: str, unpacked_mb: int) -> bytes:
    """The Office file `data` plus a member of `unpacked_mb` MB of zeros, streamed (low memory)."""
    out = io.BytesIO(data)
    with zipfile.ZipFile(out, "a", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        with archive.open(member, "w", force_zip64=True) as stream:
            zeros = bytes(1024 * 1024)
            for _ in range(unpacked_mb):
                stream.write(zeros)
    return out.getvalue()


def many_entries(data: bytes, count: int) -> bytes:
    """The Office file `data` plus `count` tiny stored members."""
    out = io.BytesIO(data)
    with zipfile.ZipFile(out, "a", zipfile.ZIP_STORED) as archive:
        for i in range(count):
            archive.writestr(f"customXml/item{i}.txt", b"x")
    return out.getvalue()
