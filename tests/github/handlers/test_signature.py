"""The webhook signature check, `bot.github.handlers.signature.signature_is_valid`: total over any header value, only
`sha256=` with exactly 64 hex digits, HMAC-SHA256 of the exact body under the exact secret."""

from __future__ import annotations

import hashlib
import hmac

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.github.handlers.signature import signature_is_valid

SECRET = "fake-webhook-secret"
BODY = b'{"zen": "Keep it logically awesome."}'


def hex_of(body: bytes, secret: str = SECRET, digest: str = "sha256") -> str:
    return hmac.new(secret.encode(), body, digest).hexdigest()


VALID = "sha256=" + hex_of(BODY)


def test_githubs_signature_is_valid() -> None:
    assert signature_is_valid(VALID, BODY, SECRET)
    assert hmac.new(SECRET.encode(), BODY, hashlib.sha256).hexdigest() == VALID.removeprefix("sha256=")


def test_upper_case_hex_is_the_same_signature() -> None:
    assert signature_is_valid("sha256=" + hex_of(BODY).upper(), BODY, SECRET)
    mixed = "".join(c.upper() if n % 2 else c for n, c in enumerate(hex_of(BODY)))
    assert signature_is_valid("sha256=" + mixed, BODY, SECRET)


def test_no_header_is_not_valid() -> None:
    assert signature_is_valid(None, BODY, SECRET) is False  # a bool, as typed: never None
    assert signature_is_valid("", BODY, SECRET) is False


def test_another_body_or_secret_is_not_valid() -> None:
    assert not signature_is_valid(VALID, BODY + b" ", SECRET)
    assert not signature_is_valid(VALID, b"", SECRET)
    assert not signature_is_valid(VALID, BODY, SECRET + "x")
    assert not signature_is_valid(VALID, BODY, SECRET.upper())
    assert signature_is_valid("sha256=" + hex_of(b""), b"", SECRET)  # an empty body has a signature too


def test_a_valid_sha1_signature_is_not_valid() -> None:
    sha1 = hex_of(BODY, digest="sha1")
    assert not signature_is_valid("sha1=" + sha1, BODY, SECRET)
    assert not signature_is_valid("sha256=" + sha1, BODY, SECRET)  # 40 digits
    assert not signature_is_valid("sha512=" + hex_of(BODY, digest="sha512"), BODY, SECRET)


@pytest.mark.parametrize(
    "header",
    [
        "sha256=",
        VALID[:-1],  # 63 digits
        VALID + "0",  # 65
        VALID + "\n",
        " " + VALID,
        VALID + " ",
        "SHA256=" + hex_of(BODY),
        "Sha256=" + hex_of(BODY),
        "sha256:" + hex_of(BODY),
        "sha256 =" + hex_of(BODY),
        "sha256==" + hex_of(BODY),
        hex_of(BODY),
        "=" + hex_of(BODY),
        VALID + ",sha256=" + hex_of(BODY),
        VALID[:-1] + "g",
        VALID[:-1] + "é",
        VALID[:-2] + "\u0660\u0661",  # Arabic-Indic digits
        VALID[:-1] + "\uff10",  # a full-width zero
        VALID[:-1] + "\udcff",  # a byte aiohttp could not decode
        "sha256=" + "0" * 64,
        "sha256=" + "é" * 64,
    ],
)
def test_every_other_shape_is_not_valid(header: str) -> None:
    assert not signature_is_valid(header, BODY, SECRET)


def test_one_changed_digit_anywhere_is_not_valid() -> None:
    digits = hex_of(BODY)
    for position in range(64):
        changed = digits[:position] + ("0" if digits[position] != "0" else "1") + digits[position + 1 :]
        assert not signature_is_valid("sha256=" + changed, BODY, SECRET), position


@settings(database=None)
@given(
    header=st.text(max_size=80),
    body=st.binary(max_size=64),
    digits=st.text("0123456789abcdefABCDEF", min_size=64, max_size=64),
)
def test_any_header_gives_an_answer_never_an_exception(header: str, body: bytes, digits: str) -> None:
    right = hex_of(body)
    assert signature_is_valid(header, body, SECRET) is (header[:7] == "sha256=" and header[7:].lower() == right)
    assert signature_is_valid("sha256=" + digits, body, SECRET) is (digits.lower() == right)
