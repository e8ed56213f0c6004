"""Conflict resolution beyond whole-item last-writer-wins, per model.

By default the newer write wins, whole item. ``Sync(resolvers={"Model": ...})`` changes that per model: a
device's edit is then written only over the cloud version it was made on, and any other version there (a
concurrent change, older or newer) is resolved:

* ``"merge"``: a per-field merge. The attributes the local change touched since its last push (the engine
  records them) are laid over the newer cloud item; the cloud's other attributes stay. An item the local
  change created or deleted is not merged (whole-item last-writer-wins).
* a callable ``resolver(local, cloud, model) -> dict | None``: both items as plain attribute dicts (values
  decoded: str, Decimal, bool, lists, dicts; sync metadata removed); the returned dict is written as a new
  version above the cloud's (conditioned on the cloud still holding the version it read); None keeps
  last-writer-wins.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..clock import SYNC_ATTRS
from ..model.codec import Decoder, encode_item

Resolver = str | Callable[[dict, dict, str], Any]
_decoder = Decoder("decimal")


def _plain(item: dict) -> dict:
    return _decoder.decode_item({k: v for k, v in item.items() if k not in SYNC_ATTRS})


def resolve(
    resolver: Resolver, model: str, local: dict, cloud: dict, fields: list[str] | None, keep: list[str]
) -> dict | None:
    """The merged item (wire format), or None to keep last-writer-wins. ``keep``: attributes (the key, the
    type) a resolver cannot change."""
    if resolver == "merge":
        if fields is None:
            return None
        merged = {k: v for k, v in cloud.items() if k not in SYNC_ATTRS}
        for name in fields:
            if name in local:
                merged[name] = local[name]
            else:
                merged.pop(name, None)
        return merged
    if not callable(resolver):
        raise ValueError(f'a resolver is "merge" or a callable, not {resolver!r}')
    out = resolver(_plain(local), _plain(cloud), model)
    if out is None:
        return None
    merged = encode_item({k: v for k, v in dict(out).items() if k not in SYNC_ATTRS})
    merged.update({name: local[name] for name in keep if name in local})
    return merged
