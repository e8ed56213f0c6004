"""Read a schema from a dict, a file (.json, .json5, .yaml, .yml) or JSON / JSON5 / YAML text."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .defs import Schema
from .errors import SchemaError, SchemaIssue
from .json5 import JSON5DecodeError
from .json5 import loads as json5_loads
from .validate import build_schema

__all__ = ["EXTENSIONS", "FORMATS", "load_schema", "parse_text", "read_schema_file"]

FORMATS = ("json", "json5", "yaml")
EXTENSIONS = {".json": "json", ".json5": "json5", ".yaml": "yaml", ".yml": "yaml"}
_FORMAT_ALIASES = {"yml": "yaml", "JSON": "json", "JSON5": "json5", "YAML": "yaml"}
_LABELS = {"json": "JSON", "json5": "JSON5", "yaml": "YAML"}


def _sniff(text: str) -> str:
    """JSON5 when the text starts (after blanks and comments) with '{', else YAML."""
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith(("{", "//", "/*")):
        return "json5"
    return "yaml"


def _syntax_error(exc: JSON5DecodeError, label: str, origin: str) -> SchemaError:
    where = f" in {origin}" if origin else ""
    if exc.msg.startswith("duplicate key"):
        return SchemaError(
            [SchemaIssue(exc.path, f"{exc.msg} (line {exc.line}, column {exc.column}{where})")]
        )
    return SchemaError(
        [SchemaIssue("", f"{label} syntax error{where} at line {exc.line}, column {exc.column}: {exc.msg}")]
    )


def _load_yaml(text: str, origin: str) -> Any:
    try:
        import yaml
    except ImportError:  # pragma: no cover - depends on the environment
        raise SchemaError("reading YAML schemas needs PyYAML: pip install pyyaml") from None

    class _Loader(yaml.SafeLoader):  # type: ignore[misc]  # PyYAML ships no type information
        pass

    def construct_mapping(loader: Any, node: Any, deep: bool = False) -> dict[Any, Any]:
        loader.flatten_mapping(node)
        mapping: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            try:
                duplicate = key in mapping
            except TypeError:
                raise yaml.constructor.ConstructorError(
                    None, None, f"unhashable key {key!r}", key_node.start_mark
                ) from None
            if duplicate:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", key_node.start_mark
                )
            mapping[key] = loader.construct_object(value_node, deep=True)
        return mapping

    _Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, construct_mapping)
    where = f" in {origin}" if origin else ""
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 - a SafeLoader subclass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        if mark is not None:
            raise SchemaError(
                f"YAML syntax error{where} at line {mark.line + 1}, column {mark.column + 1}: {problem}"
            ) from None
        raise SchemaError(f"YAML syntax error{where}: {problem}") from None
    except yaml.YAMLError as exc:
        raise SchemaError(f"YAML syntax error{where}: {exc}") from None
    except RecursionError:
        raise SchemaError(f"YAML document{where} is nested too deeply") from None


def parse_text(text: str, format: str | None = None, *, origin: str = "") -> Any:
    """Parse schema text as ``format`` (``json``, ``json5`` or ``yaml``; sniffed when ``None``) into
    Python values, raising :class:`SchemaError` with the line and column of a syntax error."""
    if text.startswith("\ufeff"):
        text = text[1:]
    fmt = format or _sniff(text)
    if fmt == "yaml":
        return _load_yaml(text, origin)
    strict = fmt == "json"
    try:
        return json5_loads(text, strict_json=strict)
    except JSON5DecodeError as exc:
        error = _syntax_error(exc, _LABELS[fmt], origin)
        if strict and not exc.msg.startswith("duplicate key"):
            try:
                json5_loads(text)
            except JSON5DecodeError:
                pass
            else:
                hint = "valid JSON5 but not JSON: name the file .json5 or pass format='json5'"
                error = SchemaError([SchemaIssue(e.path, f"{e.message} ({hint})") for e in error.errors])
        raise error from None
    except RecursionError:  # pragma: no cover - the parser limits depth itself
        raise SchemaError("document nested too deeply") from None


def read_schema_file(path: Path, format: str | None = None) -> Any:
    """The parsed (not yet validated) schema document in file ``path``, its format from ``format`` or the file's
    extension (sniffed for others); :class:`SchemaError` for a file that cannot be read, decoded or parsed."""
    fmt = format or EXTENSIONS.get(path.suffix.lower())
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise SchemaError(f"schema file not found: {str(path)!r}") from None
    except OSError as exc:
        raise SchemaError(f"cannot read schema file {str(path)!r}: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SchemaError(
            f"schema file {str(path)!r} is not UTF-8: {exc.reason} at byte {exc.start}"
        ) from None
    return parse_text(text, fmt, origin=path.name)


def _looks_like_path(text: str) -> bool:
    if not text or len(text) > 4096 or "\n" in text or "\r" in text or "\0" in text:
        return False
    if text.lstrip().startswith("{"):
        return False
    if Path(text).suffix.lower() in EXTENSIONS:
        return True
    try:
        return os.path.isfile(text)
    except (OSError, ValueError):  # pragma: no cover
        return False


def load_schema(
    source: str | os.PathLike[str] | Mapping[str, Any] | bytes | Schema,
    *,
    format: str | None = None,
    crypto: Mapping[str, Any] | None = None,
) -> Schema:
    """Load, validate and normalise a OneTable 1.1.0 schema.

    ``source`` is a dict (Python values; ``type`` may also be a Python type such as ``str`` and
    ``validate`` a compiled regex), a path to a ``.json``/``.json5``/``.yaml``/``.yml`` file, or the text
    of a JSON, JSON5 or YAML document (bytes are read as UTF-8). ``format`` (``"json"``, ``"json5"`` or
    ``"yaml"``) forces how a file or text is parsed; otherwise files go by extension and text by its first
    character (``{`` means JSON5, which includes JSON; anything else YAML).

    ``crypto`` adds crypto configuration kept out of the schema file (``{"primary": {"cipher":
    "aes-256-gcm", "password": ...}}``); it is merged over ``params.crypto``.

    Raises :class:`SchemaError` listing every problem; warnings are on ``Schema.warnings``.
    """
    if format is not None:
        format = _FORMAT_ALIASES.get(format, format)
        if format not in FORMATS:
            raise ValueError(f"unknown schema format {format!r}; use one of {', '.join(FORMATS)}")
    if isinstance(source, Schema):
        return source
    if isinstance(source, Mapping):
        data: Any = source
    elif isinstance(source, os.PathLike):
        data = read_schema_file(Path(os.fspath(source)), format)
    elif isinstance(source, (bytes, bytearray)):
        try:
            text = bytes(source).decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise SchemaError(f"schema text is not UTF-8: {exc.reason} at byte {exc.start}") from None
        data = parse_text(text, format)
    elif isinstance(source, str):
        if _looks_like_path(source):
            path = Path(source)
            if not path.is_file():
                raise SchemaError(f"schema file not found: {source!r}")
            data = read_schema_file(path, format)
        else:
            data = parse_text(source, format)
    else:
        data = source  # parsed data of the wrong shape: the validator says what is wrong with it
    return build_schema(data, crypto=crypto)
