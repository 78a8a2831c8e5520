"""The webhook signature check: is `X-Hub-Signature-256` GitHub's HMAC-SHA256 of the body under our secret?

Our own few lines rather than gidgethub's `validate_event`, which also accepts `sha1=` signatures and raises
TypeError (a 500) on a header holding a non-ASCII character. Anyone can reach the webhook, so this is pure, total
(any header value gives True or False, never an exception) and constant-time where it compares secrets.
"""

from __future__ import annotations

import hmac
import re

# Exactly what GitHub sends: the algorithm, then 64 hex digits (either case: the digits mean the same). The class
# is ASCII ranges, so a header holding any other character cannot match.
_SHA256_HEADER = re.compile(r"sha256=([0-9a-fA-F]{64})")


def signature_of(header: str | None) -> bytes | None:
    """The digest `header` holds when it is `sha256=<64 hex digits>`, else None: a request without one is refused
    before its body is read."""
    if header is None:
        return None
    shape = _SHA256_HEADER.fullmatch(header)
    return bytes.fromhex(shape.group(1)) if shape is not None else None


def signature_matches(given: bytes, body: bytes, secret: str) -> bool:
    """True when `given` (a header's digest, `signature_of`) is the HMAC-SHA256 of `body` keyed with `secret`."""
    expected = hmac.digest(secret.encode(), body, "sha256")  # one call into OpenSSL, no HMAC object
    return hmac.compare_digest(given, expected)


def signature_is_valid(header: str | None, body: bytes, secret: str) -> bool:
    """True when `header` is `sha256=<hex>` and the hex is the HMAC-SHA256 of `body` keyed with `secret`."""
    given = signature_of(header)
    return given is not None and signature_matches(given, body, secret)
