"""Field encryption with OneTable's stored format.

Configuration (the ``crypto`` argument of :class:`~dynabase.model.Table`, as OneTable's)::

    {"primary": {"cipher": "aes-256-gcm", "password": "..."}}

The key is SHA-256 of the UTF-8 password; each value gets a fresh 16-byte IV.  A stored value is the string
``"<name>:<tag base64>:<iv hex>:<ciphertext base64>"`` where ``name`` is the crypto entry used (``primary``).
Only text is encrypted (other values are turned into text first); a stored value not in that form is returned
unchanged on read, as OneTable does.  Needs the ``cryptography`` package.
"""

from __future__ import annotations

import base64
import hashlib
import os
from typing import Any, TypeVar, overload

from .errors import CryptoError

IV_LENGTH = 16
_T = TypeVar("_T")


class Crypto:
    def __init__(self, config: dict[str, Any] | None) -> None:
        self.keys: dict[str, tuple[str, bytes]] = {}
        for name, entry in (config or {}).items():
            cipher = str(entry.get("cipher", "aes-256-gcm")).lower()
            if cipher != "aes-256-gcm":
                raise CryptoError(f'Unsupported cipher "{cipher}" for crypto "{name}" (only aes-256-gcm)')
            password = entry.get("password")
            if not password:
                raise CryptoError(f'Crypto "{name}" has no password')
            self.keys[name] = (cipher, hashlib.sha256(str(password).encode("utf-8")).digest())

    @staticmethod
    def _aesgcm(secret: bytes) -> Any:
        try:
            from cryptography.hazmat.primitives.ciphers.aead import AESGCM
        except ImportError as error:  # pragma: no cover - depends on the environment
            raise CryptoError("Encrypted fields need the 'cryptography' package") from error
        return AESGCM(secret)

    def encrypt(self, text: str, name: str = "primary") -> str:
        if not text:
            return text
        entry = self.keys.get(name)
        if entry is None:
            raise CryptoError(f"Database crypto not defined for {name}")
        iv = os.urandom(IV_LENGTH)
        sealed = self._aesgcm(entry[1]).encrypt(iv, text.encode("utf-8"), None)
        data, tag = sealed[:-16], sealed[-16:]
        return f"{name}:{base64.b64encode(tag).decode()}:{iv.hex()}:{base64.b64encode(data).decode()}"

    @overload
    def decrypt(self, text: str) -> str: ...
    @overload
    def decrypt(self, text: _T) -> _T: ...
    def decrypt(self, text: Any) -> Any:
        """``text`` decrypted when it is a stored encrypted value, else as it is."""
        if not text or not isinstance(text, str):
            return text
        parts = text.split(":")
        if len(parts) != 4 or not all(parts):
            return text
        name, tag, iv, data = parts
        entry = self.keys.get(name)
        if entry is None:
            raise CryptoError(f"Database crypto not defined for {name}")
        try:
            sealed = base64.b64decode(data) + base64.b64decode(tag)
            return self._aesgcm(entry[1]).decrypt(bytes.fromhex(iv), sealed, None).decode("utf-8")
        except CryptoError:
            raise
        except Exception as error:
            raise CryptoError(f"Cannot decrypt value with crypto {name}: {error}") from error


__all__ = ["Crypto"]
