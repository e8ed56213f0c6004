"""AWS Signature Version 4: reading the ``Authorization`` header and (optionally) verifying it.

Without configured credentials the server only reads the access key and region from the credential scope
(tables can be kept per key and region, as DynamoDB Local does). With credentials (``--credentials FILE`` or
``--access-key/--secret-key``) every request must be signed by one of them; the refusals are the service's
own: ``MissingAuthenticationTokenException``, ``IncompleteSignatureException``,
``UnrecognizedClientException`` and ``InvalidSignatureException``, with its messages and its lower-case
``message`` member (the ``com.amazon.coral.service`` errors have it so).
"""

from __future__ import annotations

import time
from typing import Any, NamedTuple

ALGORITHM = "AWS4-HMAC-SHA256"
#: how far the request's date may be from the server's clock, as the service allows
MAX_SKEW_SECONDS = 15 * 60
_CORAL = "com.amazon.coral.service#"

MISSING_TOKEN = "Request is missing Authentication Token"
UNRECOGNIZED_CLIENT = "The security token included in the request is invalid."
#: worded as the service refuses an unsigned ``Host``; its own wording for an unsigned X-Amz-Target is not known
TARGET_UNSIGNED = "'X-Amz-Target' must be a 'SignedHeader' in the AWS Authorization."
SIGNATURE_MISMATCH = (
    "The request signature we calculated does not match the signature you provided. "
    "Check your AWS Secret Access Key and signing method. Consult the service documentation for details."
)


class AuthError(Exception):
    """A refused request: HTTP status, ``__type`` and message."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status

    def wire_body(self) -> dict[str, Any]:
        return {"__type": _CORAL + self.code, "message": self.message}


class Authorization(NamedTuple):
    algorithm: str
    credential: str
    signed_headers: str
    signature: str
    raw: str


def parse_authorization(header: str) -> Authorization | None:
    """The parts of a SigV4 ``Authorization`` header, or None when it is not one."""
    header = header.strip()
    algorithm, _, rest = header.partition(" ")
    if not algorithm.startswith("AWS4-"):
        return None
    params: dict[str, str] = {}
    for part in rest.split(","):
        key, sep, value = part.strip().partition("=")
        if sep:
            params[key.strip()] = value.strip()
    return Authorization(
        algorithm=algorithm,
        credential=params.get("Credential", ""),
        signed_headers=params.get("SignedHeaders", ""),
        signature=params.get("Signature", ""),
        raw=header,
    )


def access_key_and_region(header: str | None) -> tuple[str, str] | None:
    """(access key, region) of the credential scope, when the header has one (no verification)."""
    if not header:
        return None
    auth = parse_authorization(header)
    if auth is None:
        return None
    parts = auth.credential.split("/")
    if len(parts) < 3 or not parts[0]:
        return None
    return parts[0], parts[2]


# -- verification --------------------------------------------------------------------------------------------


def _hmac(key: bytes, message: str) -> bytes:
    import hashlib
    import hmac

    return hmac.new(key, message.encode("utf-8"), hashlib.sha256).digest()


def _amz_date_epoch(stamp: str) -> float | None:
    import calendar

    try:
        return float(calendar.timegm(time.strptime(stamp, "%Y%m%dT%H%M%SZ")))
    except (ValueError, OverflowError):
        return None


def _format_amz_date(epoch: float) -> str:
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(epoch))


def canonical_uri(path: str) -> str:
    """The path as botocore signs it: normalised, then URI-encoded once more (every service but S3)."""
    from urllib.parse import quote

    segments: list[str] = []
    for segment in path.split("/"):
        if segment in ("", "."):
            continue
        if segment == "..":
            if segments:
                segments.pop()
            continue
        segments.append(segment)
    normalized = "/" + "/".join(segments)
    if path.endswith("/") and normalized != "/":
        normalized += "/"
    return quote(normalized, safe="/~")


def canonical_query(query: str) -> str:
    """The query string as botocore signs it: pairs sorted, encoding kept as sent."""
    if not query:
        return ""
    pairs = []
    for part in query.split("&"):
        key, _, value = part.partition("=")
        pairs.append((key, value))
    pairs.sort()
    return "&".join(f"{key}={value}" for key, value in pairs)


def payload_hash_of(headers: dict[str, str], body: bytes | bytearray) -> str:
    """The payload hash for the canonical request: always the SHA-256 of the bytes received.

    ``X-Amz-Content-Sha256`` is never trusted: a value that is not that hash (another body's, or
    ``UNSIGNED-PAYLOAD`` / ``STREAMING-*``, which DynamoDB does not take) is refused, so a captured signature
    cannot be replayed with a substituted body.
    """
    import hashlib

    actual = hashlib.sha256(body).hexdigest()
    claimed = headers.get("x-amz-content-sha256")
    if claimed is not None and claimed.lower() != actual:
        raise AuthError("InvalidSignatureException", SIGNATURE_MISMATCH)
    return actual  # lower-case hex, as SigV4 defines the canonical request


class Verifier:
    """Checks SigV4 signatures against a fixed set of access keys."""

    def __init__(self, secrets: dict[str, str], *, clock: Any = time.time) -> None:
        if not secrets:
            raise ValueError("signature verification needs at least one access key")
        self.secrets = dict(secrets)
        self.clock = clock
        self._keys: dict[tuple[str, str, str, str], bytes] = {}

    def _signing_key(self, secret: str, date: str, region: str, service: str) -> bytes:
        cache_key = (secret, date, region, service)
        key = self._keys.get(cache_key)
        if key is None:
            key = _hmac(("AWS4" + secret).encode("utf-8"), date)
            key = _hmac(key, region)
            key = _hmac(key, service)
            key = _hmac(key, "aws4_request")
            if len(self._keys) > 1024:
                self._keys.clear()
            self._keys[cache_key] = key
        return key

    def verify(
        self, method: str, target: str, headers: dict[str, str], body: bytes | bytearray
    ) -> tuple[str, str]:
        """Raise :class:`AuthError` unless the request is signed by a known key; return (access key, region).

        ``target`` is the request-target of the request line (path and query), ``headers`` lower-cased names.
        """
        import hashlib
        import hmac

        header = headers.get("authorization")
        if not header:
            raise AuthError("MissingAuthenticationTokenException", MISSING_TOKEN)
        auth = parse_authorization(header)
        if auth is None:
            raise AuthError("MissingAuthenticationTokenException", MISSING_TOKEN)
        stamp = headers.get("x-amz-date") or ""
        missing = ""
        for name, value in (
            ("Credential", auth.credential),
            ("Signature", auth.signature),
            ("SignedHeaders", auth.signed_headers),
        ):
            if not value:
                missing += f"Authorization header requires '{name}' parameter. "
        if not stamp and not headers.get("date"):
            missing += "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. "
        if missing:
            raise AuthError("IncompleteSignatureException", missing + "Authorization=" + auth.raw)
        if auth.algorithm != ALGORITHM:
            raise AuthError(
                "IncompleteSignatureException",
                f"Unsupported AWS 'algorithm': '{auth.algorithm}' (only AWS4-HMAC-SHA256 for now). ",
            )
        if not stamp:
            raise AuthError(
                "IncompleteSignatureException",
                "Date must be in ISO-8601 'basic format'. Got ''. See http://en.wikipedia.org/wiki/ISO_8601",
            )
        epoch = _amz_date_epoch(stamp)
        if epoch is None:
            raise AuthError(
                "IncompleteSignatureException",
                f"Date must be in ISO-8601 'basic format'. Got '{stamp}'. "
                "See http://en.wikipedia.org/wiki/ISO_8601",
            )
        now = self.clock()
        if epoch < now - MAX_SKEW_SECONDS:
            raise AuthError(
                "InvalidSignatureException",
                f"Signature expired: {stamp} is now earlier than {_format_amz_date(now - MAX_SKEW_SECONDS)} "
                f"({_format_amz_date(now)} - 15 min.)",
            )
        if epoch > now + MAX_SKEW_SECONDS:
            raise AuthError(
                "InvalidSignatureException",
                f"Signature not yet current: {stamp} is still later than {_format_amz_date(now + MAX_SKEW_SECONDS)} "
                f"({_format_amz_date(now)} + 15 min.)",
            )
        parts = auth.credential.rstrip("/").split("/")
        if len(parts) != 5:
            raise AuthError(
                "IncompleteSignatureException",
                "Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, "
                f"got '{auth.credential}'",
            )
        access_key, date, region, service, terminator = parts
        problems = ""
        if not region:
            problems += f"Credential should be scoped to a valid region, not '{region}'. "
        if service != "dynamodb":
            problems += "Credential should be scoped to correct service: 'dynamodb'. "
        if terminator != "aws4_request":
            problems += (
                f"Credential should be scoped with a valid terminator: 'aws4_request', not '{terminator}'. "
            )
        if date != stamp[:8]:
            problems += (
                f"Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: "
                f"'{date}' != '{stamp[:8]}', from '{stamp}'."
            )
        if problems:
            raise AuthError("InvalidSignatureException", problems.strip())
        secret = self.secrets.get(access_key)
        if secret is None:
            raise AuthError("UnrecognizedClientException", UNRECOGNIZED_CLIENT)
        signed = auth.signed_headers.lower().split(";")
        if "host" not in signed:
            raise AuthError(
                "InvalidSignatureException", "'Host' must be a 'SignedHeader' in the AWS Authorization."
            )
        if "x-amz-target" not in signed:  # else a captured GetItem could be replayed as DeleteItem
            raise AuthError("InvalidSignatureException", TARGET_UNSIGNED)
        path, _, query = target.partition("?")
        canonical_headers = "".join(f"{name}:{' '.join(headers.get(name, '').split())}\n" for name in signed)
        payload_hash = payload_hash_of(headers, body)
        canonical = "\n".join(
            (
                method,
                canonical_uri(path),
                canonical_query(query),
                canonical_headers,
                ";".join(signed),
                payload_hash,
            )
        )
        string_to_sign = "\n".join(
            (
                ALGORITHM,
                stamp,
                f"{date}/{region}/{service}/{terminator}",
                hashlib.sha256(canonical.encode("utf-8")).hexdigest(),
            )
        )
        expected = hmac.new(
            self._signing_key(secret, date, region, service), string_to_sign.encode("utf-8"), hashlib.sha256
        ).hexdigest()
        # bytes: compare_digest refuses a str with characters beyond ASCII (TypeError), and a header may have them
        provided = auth.signature.lower().encode("utf-8", "surrogatepass")
        if not hmac.compare_digest(expected.encode("ascii"), provided):
            raise AuthError("InvalidSignatureException", SIGNATURE_MISMATCH)
        return access_key, region


# -- credentials --------------------------------------------------------------------------------------------


def load_credentials(path: str) -> dict[str, str]:
    """Access key -> secret from a file: the AWS shared-credentials INI format (every profile's
    ``aws_access_key_id``/``aws_secret_access_key``), or lines of ``ACCESS_KEY SECRET`` / ``ACCESS_KEY:SECRET``
    (``#`` comments and blank lines ignored)."""
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    secrets: dict[str, str] = {}
    if any(line.strip().startswith("[") for line in text.splitlines()):
        import configparser

        parser = configparser.ConfigParser(interpolation=None)
        parser.read_string(text, source=path)
        for section in parser.sections():
            key = parser.get(section, "aws_access_key_id", fallback=None)
            secret = parser.get(section, "aws_secret_access_key", fallback=None)
            if key and secret:
                secrets[key.strip()] = secret.strip()
    else:
        for number, line in enumerate(text.splitlines(), 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            key, sep, secret = line.partition(":") if ":" in line else line.partition(" ")
            if not sep or not key.strip() or not secret.strip():
                raise ValueError(f"{path}:{number}: expected 'ACCESS_KEY SECRET' or 'ACCESS_KEY:SECRET'")
            secrets[key.strip()] = secret.strip()
    if not secrets:
        raise ValueError(f"{path}: no access keys found")
    return secrets
