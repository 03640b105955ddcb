"""Settings declared once: each field names its environment variable, one loader reads them all.

A field made with `setting("TOP_K", 4)` is read from `TOP_K`; its type annotation says how
the text is cast, and a value that does not cast fails with the variable's name. Fields of a
dataclass type are read field by field, the same way. Fields without a variable (derived
ones) keep their defaults and are filled in by the settings class itself.
"""

from __future__ import annotations

import types
from dataclasses import MISSING, Field, field, fields, is_dataclass
from pathlib import Path
from typing import Any, Mapping, Union, get_args, get_origin, get_type_hints

from courserag.errors import ConfigError

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


def setting(env: str, default: Any, *, aliases: tuple[str, ...] = (), on_space: Any = MISSING) -> Field:
    """A settings field read from `env` (or, when unset, the first set alias).

    `on_space` is the default on a Hugging Face Space (SPACE_ID set) when it differs.
    """
    metadata = {"env": env, "aliases": aliases}
    if on_space is not MISSING:
        metadata["on_space"] = on_space
    return field(default=default, metadata=metadata)


def variables(cls: type) -> list[str]:
    """Every environment variable the settings class `cls` reads, nested classes included."""
    hints = get_type_hints(cls)
    names: list[str] = []
    for f in fields(cls):
        if is_dataclass(hints[f.name]):
            names.extend(variables(hints[f.name]))
        elif "env" in f.metadata:
            names.extend((f.metadata["env"], *f.metadata["aliases"]))
    return names


def load(cls: type, env: Mapping[str, str], on_space: bool) -> Any:
    """An instance of `cls` with every declared field read from `env`."""
    hints = get_type_hints(cls)
    values: dict[str, Any] = {}
    for f in fields(cls):
        kind = hints[f.name]
        if is_dataclass(kind):
            values[f.name] = load(kind, env, on_space)
            continue
        if "env" not in f.metadata:
            continue
        name, raw = _first_set(env, (f.metadata["env"], *f.metadata["aliases"]))
        if raw is not None:
            values[f.name] = cast(raw, kind, name)
        elif on_space and "on_space" in f.metadata:
            values[f.name] = f.metadata["on_space"]
    return cls(**values)


def _first_set(env: Mapping[str, str], names: tuple[str, ...]) -> tuple[str, str | None]:
    for name in names:
        raw = env.get(name)
        if raw is not None and raw != "":
            return name, raw
    return names[0], None


def cast(raw: str, kind: Any, name: str) -> Any:
    """`raw` as a value of `kind` (int, float, str, bool, Path, one of them | None, or a
    tuple of strings written as a comma-separated list)."""
    if get_origin(kind) is tuple:
        return tuple(part.strip() for part in raw.split(",") if part.strip())
    if get_origin(kind) in (Union, types.UnionType):
        kind = next(arg for arg in get_args(kind) if arg is not type(None))
    if kind is bool:
        text = raw.strip().lower()
        if text in _TRUE or text in _FALSE:
            return text in _TRUE
        raise ConfigError(f"{name} must be 1 or 0 (true or false), but got {raw!r}")
    try:
        return Path(raw) if kind is Path else kind(raw)
    except ValueError as exc:
        raise ConfigError(f"{name} must be a {kind.__name__}, but got {raw!r}") from exc
