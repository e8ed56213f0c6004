"""Conversions with JavaScript's (and so OneTable's) results: dates, number and string formatting."""

from __future__ import annotations

import math
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

UTC = timezone.utc
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MS = timedelta(milliseconds=1)


def clone(value: Any) -> Any:
    """Copy plain containers (dicts, lists) deeply; leave other values shared (OneTable's ``assign``)."""
    if type(value) is dict:
        return {k: clone(v) for k, v in value.items()}
    if type(value) is list:
        return [clone(v) for v in value]
    return value


def js_number_text(value: float) -> str:
    """``String(n)`` for a JavaScript number (ECMA-262's Number::toString): the shortest digits that read back
    as the same double, as Python's ``repr`` has them, in plain notation from 1e-6 to 1e21 and as ``1e-7`` /
    ``1.5e+300`` outside it."""
    text = repr(value)
    if "e" not in text and "n" not in text:  # 1e-4 <= |value| < 1e16 (or 0): repr's notation is JavaScript's
        if text.endswith(".0"):
            text = text[:-2]
        return "0" if text == "-0" else text
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    sign = "-" if value < 0 else ""
    _, places, exponent = Decimal(text.lstrip("-")).as_tuple()
    assert isinstance(exponent, int)  # a finite number's
    point = exponent + len(places)  # value = 0.<places> x 10**point
    digits = "".join(map(str, places)).rstrip("0")
    if len(digits) <= point <= 21:
        return sign + digits + "0" * (point - len(digits))
    if 0 < point <= 21:
        return f"{sign}{digits[:point]}.{digits[point:]}"
    if -6 < point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    mantissa = digits[0] + (f".{digits[1:]}" if len(digits) > 1 else "")
    return f"{sign}{mantissa}e{'+' if point >= 1 else '-'}{abs(point - 1)}"


def js_str(value: Any) -> str:
    """``value + ''`` in JavaScript."""
    if isinstance(value, str):
        return value
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return js_number_text(value)
    if isinstance(value, Decimal):
        if value.is_finite() and value == value.to_integral_value():
            return str(int(value))
        return str(value.normalize()) if value.is_finite() else str(value)
    if isinstance(value, (list, tuple)):
        return ",".join("" if v is None else js_str(v) for v in value)
    if isinstance(value, datetime):
        return iso_string(value)
    return str(value)


# -- dates ----------------------------------------------------------------------------------------------------


def as_utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def parse_date(value: Any) -> datetime:
    """``new Date(value)``: a datetime, a date, an ISO-8601 string or epoch milliseconds -> aware UTC datetime."""
    if isinstance(value, datetime):
        return as_utc(value)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    if isinstance(value, bool):
        raise ValueError(f"not a date: {value!r}")
    if isinstance(value, (int, float, Decimal)):
        return EPOCH + timedelta(milliseconds=float(value))
    if isinstance(value, str):
        text = value.strip()
        if text and (text.lstrip("-").isdigit()):
            return EPOCH + timedelta(milliseconds=int(text))
        if text.endswith("Z") or text.endswith("z"):
            text = text[:-1] + "+00:00"
        parsed = datetime.fromisoformat(text)
        return as_utc(parsed)
    raise ValueError(f"not a date: {value!r}")


def epoch_ms(value: datetime) -> int:
    return (as_utc(value) - EPOCH) // _MS


def iso_string(value: datetime) -> str:
    """``Date.toISOString()``: ``YYYY-MM-DDTHH:MM:SS.sssZ`` (milliseconds, UTC)."""
    value = as_utc(value)
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"


def write_date(value: Any, iso: bool, ttl: bool = False) -> Any:
    """OneTable's transformWriteDate: TTL fields -> epoch seconds (rounded up), else ISO string or epoch ms.

    Numbers are taken as epoch milliseconds (JavaScript's convention) and kept as numbers when not ISO.
    """
    if ttl:
        if isinstance(value, (int, float, Decimal)) and not isinstance(value, bool):
            ms = float(value)
        else:
            ms = epoch_ms(parse_date(value))
        return math.ceil(ms / 1000)
    if iso:
        return iso_string(parse_date(value))
    if isinstance(value, (int, float, Decimal)) and not isinstance(value, bool):
        return value
    return epoch_ms(parse_date(value))


def read_date(value: Any, ttl: bool = False) -> Any:
    """Stored date (epoch ms, ISO string, or TTL epoch seconds) -> aware UTC datetime; junk is returned as is."""
    if value is None:
        return None
    try:
        if ttl and isinstance(value, (int, float, Decimal)) and not isinstance(value, bool):
            return EPOCH + timedelta(seconds=float(value))
        return parse_date(value)
    except (ValueError, OverflowError):
        return value


__all__ = ["epoch_ms", "iso_string", "js_str", "parse_date", "read_date", "write_date"]
