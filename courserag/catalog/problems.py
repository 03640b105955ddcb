"""What is wrong with a catalog, said the way a compiler says it: `file:row: field: message`.

A problem names the file (inside the catalog folder), the spreadsheet row (the header is row
1), the column and what is wrong, so a registrar can go straight to the cell. A problem of a
whole file has no row (`programs.csv: missing from …`), one of a whole row no field.
"""

from __future__ import annotations

from dataclasses import dataclass

from courserag.catalog.model import Where
from courserag.errors import ConfigError

MAX_PROBLEMS = 20  # named in the one-line error; `catalog check` prints them all


@dataclass(frozen=True, slots=True)
class Problem:
    file: str  # "" for the catalog as a whole
    row: int | None
    field: str
    message: str

    def __str__(self) -> str:
        head = f"{self.file}:{self.row}" if self.row else self.file
        parts = [p for p in (head, self.field, self.message) if p]
        return ": ".join(parts)


class Problems(list):
    """The problems found so far, in the order found; `add` takes a row (`Where`) or a file."""

    def add(self, at: Where | str, field: str, message: str) -> None:
        if isinstance(at, Where):
            self.append(Problem(at.file, at.row, field, message))
        else:
            self.append(Problem(at, None, field, message))


class CatalogError(ConfigError):
    """A catalog that cannot be used; `problems` names each file, row and field."""

    def __init__(self, problems: list[Problem]):
        self.problems = list(problems)
        more = f" (and {len(problems) - MAX_PROBLEMS} more)" if len(problems) > MAX_PROBLEMS else ""
        super().__init__("catalog: " + "; ".join(map(str, problems[:MAX_PROBLEMS])) + more)

    @property
    def lines(self) -> list[str]:
        """Each problem as `file:row: field: message`."""
        return [str(p) for p in self.problems]
