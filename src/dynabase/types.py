"""DynamoDB's data types: AttributeValue validation, numbers, item sizes and key ordering.

Values are kept in the low-level wire shape boto3 uses (``{"S": "x"}``, ``{"N": "1.5"}``, ``{"B": b"..."}``,
``{"M": {...}}`` ...), so items pass through the engine without conversion. Numbers are strings in that shape and
become :class:`decimal.Decimal` only where arithmetic or comparison needs them.
"""

from __future__ import annotations

import base64
import re
from decimal import Context, Decimal
from typing import Any

from .errors import ValidationException

AttributeValue = dict[str, Any]
Item = dict[str, AttributeValue]

SCALAR_TYPES = ("S", "N", "B")
ALL_TYPES = ("S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS")

#: Exact decimal arithmetic wide enough for any two DynamoDB numbers (38 digits, exponents -130..125).
DECIMAL_CONTEXT = Context(prec=300, Emax=1000, Emin=-1000)

MAX_ITEM_SIZE = 400 * 1024
MAX_HASH_KEY_SIZE = 2048
MAX_RANGE_KEY_SIZE = 1024
MAX_NUMBER_DIGITS = 38


# -- numbers -------------------------------------------------------------------------------------------------


_NUMBER = re.compile(r"[+-]?(?:\d+\.?(\d*)|\.(\d+))(?:[eE]([+-]?\d+))?")
#: integers already in DynamoDB's normal form (no sign, leading zero, or more than 38 digits)
PLAIN_INTEGER = re.compile(r"-?[1-9]\d{0,37}")
#: fractions already in normal form (no leading zero, no trailing zero); at most 39 characters keeps them
#: within 38 digits and far from the range's ends
_PLAIN_FRACTION = re.compile(r"-?(?:0|[1-9]\d*)\.\d*[1-9]")
#: DynamoDB reads numbers as Java BigDecimals, whose exponent and scale are 32-bit integers
_INT_MAX = 2**31 - 1
_NOT_A_NUMBER = "A value provided cannot be converted into a number"


def readable_number(text: str) -> bool:
    """Whether DynamoDB can read ``text`` as a number: its syntax, and (as a Java BigDecimal) an exponent and a
    scale that fit 32-bit integers."""
    match = _NUMBER.fullmatch(text)
    if match is None:
        return False
    fraction, point_fraction, exponent = match.groups()
    if exponent is None:
        return True
    digits = exponent.lstrip("+-").lstrip("0") or "0"
    if len(digits) > 10:  # out of range (and int() of a huge string is slow, or refused)
        return False
    value = -int(digits) if exponent[0] == "-" else int(digits)
    return value <= _INT_MAX and len(fraction or point_fraction or "") - value <= _INT_MAX


def parse_number(text: Any) -> Decimal:
    """A DynamoDB number as a Decimal, validated for precision and range."""
    if type(text) is not str or not readable_number(text):
        raise ValidationException(_NOT_A_NUMBER)
    return check_number(Decimal(text))


def normalize_number(text: Any) -> str:
    """A number's text in DynamoDB's normal form, validated."""
    if type(text) is str and (
        PLAIN_INTEGER.fullmatch(text) is not None
        or (len(text) <= 39 and _PLAIN_FRACTION.fullmatch(text) is not None)
    ):
        return text  # the common cases: already normal, within precision and range
    return format_number(parse_number(text))


def check_number(value: Decimal) -> Decimal:
    """Raise DynamoDB's errors for a number outside its precision or range; return it normalised.

    Precision and magnitude come from the digits as written, before any arithmetic: normalising a number far
    outside the range in a bounded context would overflow, or round it silently to zero.
    """
    if value.is_zero():
        return Decimal(0)
    _sign, digits, exponent = value.as_tuple()
    significant = len(digits)
    while digits[significant - 1] == 0:
        significant -= 1
    if significant > MAX_NUMBER_DIGITS:
        raise ValidationException("DynamoDB only supports precision up to 38 digits")
    magnitude = len(digits) + exponent  # type: ignore[operator]  # finite here: the exponent is an int
    if magnitude > 126:
        raise ValidationException(
            "Number overflow. Attempting to store a number with magnitude larger than supported range"
        )
    if magnitude < -129:
        raise ValidationException(
            "Number underflow. Attempting to store a number with magnitude smaller than supported range"
        )
    return value.normalize(DECIMAL_CONTEXT)


def format_number(value: Decimal) -> str:
    """DynamoDB's normalised text for a number: plain notation, no trailing zeros, no exponent."""
    if value.is_zero():
        return "0"
    return format(value, "f")


def to_decimal(text: str) -> Decimal:
    """A stored (already valid) number string as a Decimal."""
    return Decimal(text)


# -- validation ----------------------------------------------------------------------------------------------

_SET_NAMES = {"SS": "string", "NS": "number", "BS": "binary"}


MAX_NESTING = 32
#: PartiQL's literals say only this much; the other APIs add ``_NESTING``'s explanation
NESTING = "Nesting Levels have exceeded supported limits"
_NESTING = f"{NESTING}: Attributes in the item have nested levels beyond supported limit"


def validate_value(value: Any, normalize: bool = True, depth: int = 0) -> AttributeValue:
    """Validate one AttributeValue; return it with binaries as bytes.

    DynamoDB (as DynamoDB Local shows) normalises the numbers of top-level attributes (``1.50`` becomes ``1.5``)
    but stores numbers nested in maps and lists as they were written: ``normalize`` is true at the top level.
    """
    if type(value) is not dict or not value:
        raise ValidationException(
            "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"
        )
    if len(value) > 1:
        raise ValidationException(
            "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"
        )
    ((kind, inner),) = value.items()
    if kind == "S":
        if type(inner) is not str:
            raise ValidationException("Invalid type for S: expected a string")
        return value
    if kind == "N":
        if normalize:
            return {"N": normalize_number(inner)}
        parse_number(inner)
        return value
    if kind == "B":
        return {"B": to_bytes(inner)}
    if kind == "BOOL":
        if not isinstance(inner, bool):
            raise ValidationException("Invalid type for BOOL: expected a boolean")
        return value
    if kind == "NULL":
        if inner is not True:
            raise ValidationException(
                "One or more parameter values were invalid: Null attribute value types must have the value of true"
            )
        return value
    if kind in ("M", "L"):
        if depth + 1 >= MAX_NESTING:
            raise ValidationException(_NESTING)
        if kind == "M":
            if not isinstance(inner, dict):
                raise ValidationException("Invalid type for M: expected a map")
            return {"M": validate_item(inner, normalize=False, depth=depth + 1)}
        if not isinstance(inner, list):
            raise ValidationException("Invalid type for L: expected a list")
        return {"L": [validate_value(v, False, depth + 1) for v in inner]}
    if kind in _SET_NAMES:
        return {kind: _validate_set(kind, inner, normalize)}
    raise ValidationException(
        "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"
    )


def set_member_text(text: str) -> str:
    """A nested number set member as Local stores it: Java's ``BigDecimal.toString`` of the text (``1e-3`` is
    ``0.001``, ``1E2`` is ``1E+2``, ``1.50`` stays), which Python's ``str(Decimal)`` matches but for ``-0``."""
    value = Decimal(text)
    return str(value.copy_abs() if value.is_zero() else value)


def _validate_set(kind: str, inner: Any, normalize: bool) -> list[Any]:
    if not isinstance(inner, (list, tuple, set, frozenset)):
        raise ValidationException(f"Invalid type for {kind}: expected a list")
    if not inner:
        if kind == "BS":
            raise ValidationException(
                "One or more parameter values were invalid: Binary sets should not be empty"
            )
        raise ValidationException(
            f"One or more parameter values were invalid: An {_SET_NAMES[kind]} set  may not be empty"
        )
    if kind == "SS":
        members = list(inner)
        if not all(isinstance(m, str) for m in members):
            raise ValidationException("Invalid type for SS: expected strings")
        if len(set(members)) != len(members):
            # AWS ends the sentence with a period (architect/dynalite test/scan.js, its suite run against the
            # service: "Input collection [a, a] contains duplicates."); DynamoDB Local does not
            raise ValidationException(
                f"One or more parameter values were invalid: Input collection [{', '.join(members)}] contains "
                "duplicates."
            )
        return members
    if kind == "NS":
        numbers = [parse_number(m) for m in inner]
        if len(set(numbers)) != len(numbers):
            raise ValidationException("Input collection contains duplicates")
        if normalize:
            return [format_number(n) for n in numbers]
        return [set_member_text(m) for m in inner]
    members = [to_bytes(m) for m in inner]
    if len(set(members)) != len(members):
        # AWS quotes the members in base64, with no space before "of" (architect/dynalite test/scan.js:
        # "Input collection [Yg==, Yg==]of type BS contains duplicates."; paritysuite/dynamodb-conformance
        # tests/tier3/error-messages/putItem.test.ts: "...]of type BS contains duplicates"); Local quotes none
        shown = ", ".join(base64.b64encode(m).decode() for m in members)
        raise ValidationException(
            f"One or more parameter values were invalid: Input collection [{shown}]of type BS contains duplicates."
        )
    return members


def validate_item(item: Any, normalize: bool = True, depth: int = 0) -> Item:
    """Validate a map of attribute names to AttributeValues (an item, a key, or a nested map)."""
    if not isinstance(item, dict):
        raise ValidationException("Invalid type for item: expected a map")
    out = {}
    for name, value in item.items():
        if type(name) is not str or not name:
            raise ValidationException("Empty attribute name")
        if type(value) is dict and len(value) == 1 and type(value.get("S")) is str:
            out[name] = value  # the most common attribute, checked inline
        else:
            out[name] = validate_value(value, normalize, depth)
    return out


def validate_sized_item(item: Any) -> tuple[Item, int]:
    """:func:`validate_item` and :func:`item_size` in one pass over a top-level item."""
    if not isinstance(item, dict):
        raise ValidationException("Invalid type for item: expected a map")
    out = {}
    size = 0
    for name, value in item.items():
        if type(name) is not str or not name:
            raise ValidationException("Empty attribute name")
        size += len(name) if name.isascii() else len(name.encode("utf-8"))
        if type(value) is dict and len(value) == 1:
            text = value.get("S")
            if type(text) is str:  # the most common attribute, checked and sized inline
                out[name] = value
                size += len(text) if text.isascii() else len(text.encode("utf-8"))
                continue
        value = validate_value(value)
        out[name] = value
        size += value_size(value)
    return out, size


def to_bytes(value: Any) -> bytes:
    """A binary value as bytes; str is encoded as UTF-8, as botocore does for blob parameters."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, str):
        return value.encode("utf-8")
    raise ValidationException("Invalid type for B: expected bytes")


# -- sizes ---------------------------------------------------------------------------------------------------


def number_size(text: str) -> int:
    """Bytes DynamoDB counts for a number: one per base-100 digit pair (aligned on the decimal point),
    one more, and one more again for a negative number."""
    if PLAIN_INTEGER.fullmatch(text) is not None:
        magnitude = text.lstrip("-")
        significant = magnitude.rstrip("0")
        length = len(significant) + (len(magnitude) - len(significant)) % 2
        return (length + 1) // 2 + 1 + (text[0] == "-")
    if len(text) <= 39 and _PLAIN_FRACTION.fullmatch(text) is not None:
        negative = text[0] == "-"
        whole, fraction = text[negative:].split(".")
        if whole == "0":  # pairs of leading zeros after the point do not count
            pairs = (len(fraction) + 1) // 2 - (len(fraction) - len(fraction.lstrip("0"))) // 2
        else:
            pairs = (len(whole) + 1) // 2 + (len(fraction) + 1) // 2
        return pairs + 1 + negative
    number = Decimal(text)
    if number.is_zero():
        return 1
    sign, digits, exponent = number.normalize(DECIMAL_CONTEXT).as_tuple()
    length = len(digits) + (exponent % 2)  # type: ignore[operator]  # finite: the exponent is an int
    return (length + 1) // 2 + 1 + sign


def value_size(value: AttributeValue) -> int:
    """Bytes DynamoDB counts for an AttributeValue."""
    ((kind, inner),) = value.items()
    if kind == "S":
        return len(inner) if inner.isascii() else len(inner.encode("utf-8"))
    if kind == "N":
        return number_size(inner)
    if kind == "B":
        return len(inner)
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "M":
        return 3 + sum(len(k.encode("utf-8")) + value_size(v) + 1 for k, v in inner.items())
    if kind == "L":
        return 3 + sum(value_size(v) + 1 for v in inner)
    if kind == "SS":
        return sum(len(m.encode("utf-8")) for m in inner)
    if kind == "NS":
        return sum(number_size(m) for m in inner)
    return sum(len(m) for m in inner)  # BS


def item_size(item: Item) -> int:
    """Bytes DynamoDB counts for an item: attribute names plus values."""
    return sum(attribute_size(name, value) for name, value in item.items())


def attribute_size(name: str, value: AttributeValue) -> int:
    """Bytes DynamoDB counts for one attribute of an item: its name and its value."""
    size = len(name) if name.isascii() else len(name.encode("utf-8"))
    text = value.get("S")
    if text is not None:
        return size + (len(text) if text.isascii() else len(text.encode("utf-8")))
    return size + value_size(value)


# -- key ordering --------------------------------------------------------------------------------------------


def encode_key(value: AttributeValue) -> bytes:
    """An order-preserving byte encoding of a key value (S, N or B): comparing encodings compares values.

    S sorts by UTF-8 bytes and B by bytes, as DynamoDB does. Numbers are encoded as a sign byte, a
    base-10 exponent byte and the digits (complemented for negatives), so byte order is numeric order.
    """
    if "S" in value:
        text: str = value["S"]
        return text.encode("utf-8")
    if "B" in value:
        data: bytes = value["B"]
        return data
    return encode_number(Decimal(value["N"]))


def encode_key_part(value: AttributeValue) -> bytes:
    """One attribute of a multi-attribute key: :func:`encode_key` made self-delimiting (``00`` escaped as
    ``00 FF``, then the terminator ``00 01``), so concatenated parts compare attribute by attribute, and a
    part's prefix without the terminator is a byte prefix of every part it is a prefix of (begins_with)."""
    return escape_key_bytes(encode_key(value)) + KEY_PART_END


def escape_key_bytes(encoded: bytes) -> bytes:
    """The escaped form of an encoded key value, without its terminator (see :func:`encode_key_part`)."""
    return encoded.replace(b"\x00", b"\x00\xff")


KEY_PART_END = b"\x00\x01"


def encode_composite_key(values: list[AttributeValue]) -> bytes:
    """An order-preserving encoding of several key values compared in order (a multi-attribute GSI key)."""
    return b"".join(encode_key_part(v) for v in values)


def encode_number(number: Decimal) -> bytes:
    if number.is_zero():
        return b"\x02"
    sign, digits, exponent = number.normalize(DECIMAL_CONTEXT).as_tuple()
    magnitude = len(digits) + exponent + 129  # type: ignore[operator]  # 0..255 for DynamoDB's range
    text = bytes(0x30 + d for d in digits)
    if not sign:
        return b"\x03" + bytes([magnitude]) + text
    complemented = bytes(0x69 - d for d in digits)  # '9' -> '0', '0' -> '9'
    return b"\x01" + bytes([255 - magnitude]) + complemented + b"\xff"


def key_type(value: AttributeValue) -> str:
    """The type letter of a key AttributeValue ('S', 'N', 'B' or another type's name)."""
    return next(iter(value))


def compare_values(a: AttributeValue, b: AttributeValue) -> int | None:
    """Order of two scalar values of the same type (-1, 0, 1), or None when DynamoDB cannot compare them."""
    (ka, va), (kb, vb) = next(iter(a.items())), next(iter(b.items()))
    if ka != kb:
        return None
    if ka == "N":
        x, y = Decimal(va), Decimal(vb)
    elif ka in ("S", "B"):
        x, y = va, vb
    else:
        return None
    return (x > y) - (x < y)
