"""Python values <-> DynamoDB AttributeValues, written for speed.

Decoding (AttributeValue -> Python):

* ``S`` -> ``str``, ``BOOL`` -> ``bool``, ``NULL`` -> ``None``, ``B`` -> ``bytes``, ``M`` -> ``dict``,
  ``L`` -> ``list``, ``SS``/``NS``/``BS`` -> ``set``.
* ``N`` -> by the ``numbers`` mode: ``"auto"`` (the default) gives ``int`` for integral numbers and
  ``decimal.Decimal`` otherwise (exact, like boto3, but integers stay ints); ``"decimal"`` gives ``Decimal``
  always (boto3's behaviour); ``"float"`` gives ``int`` for integral numbers and ``float`` otherwise.

Encoding (Python -> AttributeValue) accepts ``str``, ``bool``, ``int``, ``float``, ``Decimal``, ``None``,
``bytes``/``bytearray``/``memoryview``, ``dict``, ``list``/``tuple`` and ``set``/``frozenset`` (of strings,
numbers or bytes).  Dates must have been turned into strings or numbers before (the model layer does that).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from .values import js_number_text

AttributeValue = dict[str, Any]
NUMBER_MODES = ("auto", "decimal", "float")


# -- decoding -------------------------------------------------------------------------------------------------


def _int_or_decimal(text: str) -> int | Decimal:
    # DynamoDB returns numbers normalised: an integer has no '.', no exponent
    if "." in text or "e" in text or "E" in text:
        return Decimal(text)
    return int(text)


def _int_or_float(text: str) -> int | float:
    if "." in text or "e" in text or "E" in text:
        return float(text)
    return int(text)


class Decoder:
    """A direct AttributeValue -> Python decoder (several times cheaper than boto3's TypeDeserializer)."""

    __slots__ = ("number", "fraction", "decode", "decode_item", "decode_items")

    def __init__(self, numbers: str = "auto") -> None:
        if numbers not in NUMBER_MODES:
            raise ValueError(f"numbers must be one of {NUMBER_MODES}, not {numbers!r}")
        readers: dict[str, Callable[[str], Any]] = {
            "auto": _int_or_decimal,
            "decimal": Decimal,
            "float": _int_or_float,
        }
        number = readers[numbers]
        self.number = number
        #: what ``number`` makes of a text with a '.' (inlined by the hot paths: no call of ``number``)
        fraction: Callable[[str], Any] = float if numbers == "float" else Decimal
        self.fraction = fraction

        #: what ``number`` makes of a text of digits alone (inlined as ``fraction``)
        whole: Callable[[str], Any] = Decimal if numbers == "decimal" else int

        # membership tests beat iterating the one-key dict; the commonest types first, strings and numbers
        # inline in maps and items (a call less per value)
        def decode(av: AttributeValue) -> Any:
            if "S" in av:
                return av["S"]
            if "N" in av:
                text = av["N"]
                return whole(text) if text.isdecimal() else fraction(text) if "." in text else number(text)
            if "BOOL" in av:
                return av["BOOL"]
            if "M" in av:
                return decode_item(av["M"])
            if "L" in av:
                out = []
                for v in av["L"]:
                    out.append(v["S"] if "S" in v else decode(v))
                return out
            if "NULL" in av:
                return None
            if "B" in av:
                value = av["B"]
                return value if isinstance(value, bytes) else bytes(value)
            if "SS" in av:
                return set(av["SS"])
            if "NS" in av:
                return {number(v) for v in av["NS"]}
            if "BS" in av:
                return {bytes(v) for v in av["BS"]}
            if not av:
                raise ValueError("empty AttributeValue")
            raise ValueError(f"unknown AttributeValue type {next(iter(av))!r}")

        # an item's values with the commonest types read inline, maps and lists one level down too: a call of
        # ``decode`` only for the rarer types and deeper values
        def decode_item(item: dict[str, AttributeValue]) -> dict[str, Any]:
            out = {}
            for name, av in item.items():
                if "S" in av:
                    out[name] = av["S"]
                elif "N" in av:
                    text = av["N"]
                    out[name] = (
                        whole(text) if text.isdecimal() else fraction(text) if "." in text else number(text)
                    )
                elif "BOOL" in av:
                    out[name] = av["BOOL"]
                elif "M" in av:
                    sub = {}
                    for key, v in av["M"].items():
                        if "S" in v:
                            sub[key] = v["S"]
                        elif "N" in v and v["N"].isdecimal():
                            sub[key] = whole(v["N"])
                        else:
                            sub[key] = decode(v)
                    out[name] = sub
                elif "L" in av:
                    values = []
                    for v in av["L"]:
                        values.append(v["S"] if "S" in v else decode(v))
                    out[name] = values
                else:
                    out[name] = decode(av)
            return out

        def decode_items(items: list[dict[str, AttributeValue]]) -> list[dict[str, Any]]:
            return [decode_item(item) for item in items]

        self.decode = decode
        self.decode_item = decode_item
        self.decode_items = decode_items


# -- encoding -------------------------------------------------------------------------------------------------


def _number_text(value: int | float | Decimal) -> str:
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise ValueError(f"cannot store the number {value!r} in DynamoDB")
        if value.is_integer() and abs(value) < 1e21:
            # its exact digits, which JavaScript writes too up to 2**53 (OneTable refuses numbers past that): a
            # float past it reads back as the same int, where the shortest digits would read back as another
            return str(int(value))
        return js_number_text(value)  # as OneTable (JavaScript) writes the same number
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise ValueError(f"cannot store the number {value!r} in DynamoDB")
        return str(value)
    return str(value)


def encode(value: Any) -> AttributeValue:
    """One Python value as an AttributeValue."""
    kind = type(value)
    if kind is str:
        return {"S": value}
    if kind is int:
        return {"N": str(value)}
    if kind is bool:
        return {"BOOL": value}
    if kind is float or kind is Decimal:
        return {"N": _number_text(value)}
    if value is None:
        return {"NULL": True}
    # strings inline: the commonest members of maps and lists
    if kind is dict:
        return {
            "M": {
                (k if type(k) is str else str(k)): {"S": v} if type(v) is str else encode(v)
                for k, v in value.items()
            }
        }
    if kind is list or kind is tuple:
        return {"L": [{"S": v} if type(v) is str else encode(v) for v in value]}
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"B": bytes(value)}
    if isinstance(value, (set, frozenset)):
        return _encode_set(value)
    if isinstance(value, str):
        return {"S": str(value)}
    if isinstance(value, bool):
        return {"BOOL": bool(value)}
    if isinstance(value, (int, float, Decimal)):
        return {"N": _number_text(value)}
    if isinstance(value, dict):
        return {"M": {str(k): encode(v) for k, v in value.items()}}
    if isinstance(value, (list, tuple)):
        return {"L": [encode(v) for v in value]}
    raise TypeError(f"cannot store a {kind.__name__} in DynamoDB: {value!r}")


def _encode_set(value: set[Any] | frozenset[Any]) -> AttributeValue:
    if not value:
        raise ValueError("DynamoDB cannot store an empty set")
    if all(isinstance(v, str) for v in value):
        return {"SS": sorted(value)}
    if all(isinstance(v, (int, float, Decimal)) and not isinstance(v, bool) for v in value):
        return {"NS": [_number_text(v) for v in value]}
    if all(isinstance(v, (bytes, bytearray, memoryview)) for v in value):
        return {"BS": [bytes(v) for v in value]}
    raise TypeError(f"a set must hold only strings, only numbers or only bytes: {value!r}")


def encode_item(item: dict[str, Any]) -> dict[str, AttributeValue]:
    """A dict of Python values as a DynamoDB item (or key / ExpressionAttributeValues map)."""
    return {name: {"S": value} if type(value) is str else encode(value) for name, value in item.items()}


__all__ = ["Decoder", "NUMBER_MODES", "encode", "encode_item"]
