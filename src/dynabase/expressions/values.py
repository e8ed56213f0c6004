"""Operations on AttributeValues that expressions need: equality, ordering, size and type names."""

from __future__ import annotations

from decimal import Decimal

#: names DynamoDB uses in update-expression type errors (ADD/DELETE)
LONG_TYPE_NAMES = {
    "S": "STRING",
    "N": "NUMBER",
    "B": "BINARY",
    "BOOL": "BOOLEAN",
    "NULL": "NULL",
    "M": "MAP",
    "L": "LIST",
    "SS": "STRING_SET",
    "NS": "NUMBER_SET",
    "BS": "BINARY_SET",
}


def type_of(value: dict) -> str:
    for kind in value:
        return kind
    raise ValueError("empty AttributeValue")


def equal(a: dict, b: dict) -> bool:
    """DynamoDB's ``=``: same type and value; sets compare as sets, numbers numerically."""
    if a == b:
        return True
    (ka, va), (kb, vb) = next(iter(a.items())), next(iter(b.items()))
    if ka != kb:
        return False
    if ka == "N":
        return Decimal(va) == Decimal(vb)
    if ka in ("SS", "BS"):
        return len(va) == len(vb) and set(va) == set(vb)
    if ka == "NS":
        return len(va) == len(vb) and set(map(Decimal, va)) == set(map(Decimal, vb))
    if ka == "L":
        return len(va) == len(vb) and all(equal(x, y) for x, y in zip(va, vb, strict=True))
    if ka == "M":
        return va.keys() == vb.keys() and all(equal(va[k], vb[k]) for k in va)
    if ka == "B":
        return bytes(va) == bytes(vb)
    return False


def ordering_key(value: dict):
    """``(type, comparable)`` for N, S and B values; None for types that have no order."""
    kind, inner = next(iter(value.items()))
    if kind == "N":
        return "N", Decimal(inner)
    if kind == "S":
        return "S", inner  # code point order is UTF-8 byte order
    if kind == "B":
        return "B", bytes(inner)
    return None


def size(value: dict | None) -> dict | None:
    """``size()`` of a value as an N AttributeValue, or None for missing values and types without a size."""
    if value is None:
        return None
    kind, inner = next(iter(value.items()))
    if kind == "S":
        n = len(inner) + sum(1 for c in inner if c > "\uffff")  # UTF-16 code units, as DynamoDB counts
    elif kind in ("N", "BOOL", "NULL"):
        return None
    else:
        n = len(inner)
    return {"N": str(n)}


def contains(haystack: dict | None, needle: dict | None) -> bool:
    """``contains()``: substring, set membership or list element."""
    if haystack is None or needle is None:
        return False
    kind, inner = next(iter(haystack.items()))
    nkind, ninner = next(iter(needle.items()))
    if kind == "S":
        return nkind == "S" and ninner in inner
    if kind == "B":
        return nkind == "B" and bytes(ninner) in bytes(inner)
    if kind == "SS":
        return nkind == "S" and ninner in inner
    if kind == "NS":
        return nkind == "N" and Decimal(ninner) in set(map(Decimal, inner))
    if kind == "BS":
        return nkind == "B" and bytes(ninner) in {bytes(m) for m in inner}
    if kind == "L":
        return any(equal(element, needle) for element in inner)
    return False


def begins_with(value: dict | None, prefix: dict | None) -> bool:
    if value is None or prefix is None:
        return False
    kind, inner = next(iter(value.items()))
    pkind, pinner = next(iter(prefix.items()))
    if kind != pkind:
        return False
    if kind == "S":
        return inner.startswith(pinner)
    if kind == "B":
        return bytes(inner).startswith(bytes(pinner))
    return False


def describe(raw: dict) -> str:
    """A value as DynamoDB's Java AttributeValue prints in messages (``AttributeValue: {N:1.50}``)."""
    kind, inner = next(iter(raw.items()))
    if kind == "B":
        n = len(inner) if isinstance(inner, (bytes, bytearray)) else len(str(inner).encode())
        inner = f"java.nio.HeapByteBuffer[pos=0 lim={n} cap={n}]"
    return f"AttributeValue: {{{kind}:{inner}}}"
