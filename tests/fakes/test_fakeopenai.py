"""The fake OpenAI, exercised the way the bot will use it: the real `openai.AsyncOpenAI` client (httpx2
transport, retries, timeouts, error classes) over real HTTP on 127.0.0.1, no mocks."""

from __future__ import annotations

import asyncio
import json
import math
import ssl
import time
from collections.abc import AsyncIterator
from typing import Any

import openai
import pydantic
import pytest
from fakeopenai import Failure, FakeOpenAI, Hang, Malformed, Reply, ToolCall, prompt_tokens

pytest_plugins = ["fakeopenai.fixtures", "pytester"]

MODEL = "test-model"
USER = {"role": "user", "content": "Is docs/setup.md still true?"}
SCHEMA = {
    "type": "object",
    "properties": {"verdict": {"type": "string", "enum": ["ok", "stale"]}, "reason": {"type": "string"}},
    "required": ["verdict", "reason"],
    "additionalProperties": False,
}
VERDICT_FORMAT = {"type": "json_schema", "json_schema": {"name": "verdict", "schema": SCHEMA, "strict": True}}
READ_PAGE = {
    "type": "function",
    "function": {
        "name": "read_page",
        "description": "Read a wiki page.",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    },
}


SSL_CONTEXT = ssl.create_default_context()  # unused on http://, but httpx2 builds one per client: 25 ms each


def client_for(fake: FakeOpenAI, **kwargs: Any) -> openai.AsyncOpenAI:
    """The real client with openai's own HTTP client defaults, sharing one SSL context between tests."""
    options: dict[str, Any] = {"api_key": fake.api_key, "max_retries": 0, "timeout": 5.0, **kwargs}
    http_client = openai.DefaultAsyncHttpxClient(verify=SSL_CONTEXT)
    return openai.AsyncOpenAI(base_url=fake.base_url, http_client=http_client, **options)


@pytest.fixture
async def client(fake_openai: FakeOpenAI) -> AsyncIterator[openai.AsyncOpenAI]:
    async with client_for(fake_openai) as opened:
        yield opened


async def ask(client: openai.AsyncOpenAI, **kwargs: Any) -> Any:
    return await client.chat.completions.create(**{"model": MODEL, "messages": [USER], **kwargs})


# -- answers -------------------------------------------------------------------------------------------
async def test_scripted_json_schema_answer_with_usage(fake_openai: FakeOpenAI, client: openai.AsyncOpenAI) -> None:
    fake_openai.reply_json({"verdict": "stale", "reason": "the flag was renamed"})
    system = {"role": "system", "content": "You check wiki pages against code."}

    completion = await ask(client, messages=[system, USER], response_format=VERDICT_FORMAT, temperature=0)

    assert json.loads(completion.choices[0].message.content) == {"verdict": "stale", "reason": "the flag was renamed"}
    assert completion.object == "chat.completion"
    assert completion.model == MODEL
    assert completion.choices[0].finish_reason == "stop"
    assert completion.choices[0].message.role == "assistant"
    prompt = math.ceil((len(system["content"]) + len(USER["content"])) / 4)
    answer = math.ceil(len(json.dumps({"verdict": "stale", "reason": "the flag was renamed"})) / 4)
    assert completion.usage is not None
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (prompt, answer)
    assert completion.usage.total_tokens == prompt + answer
    assert fake_openai.usage == {"prompt_tokens": prompt, "completion_tokens": answer, "requests": 1}
    sent = fake_openai.requests[0]
    assert sent["response_format"] == VERDICT_FORMAT
    assert sent["temperature"] == 0
    assert fake_openai.headers[0]["authorization"] == "Bearer sk-test"


async def test_parse_helper_sends_a_strict_schema_the_fake_accepts(
    fake_openai: FakeOpenAI, client: openai.AsyncOpenAI
) -> None:
    class Verdict(pydantic.BaseModel):
        verdict: str
        lines: list[int]

    fake_openai.script(
        Reply.json({"verdict": "ok", "lines": [3, 4]}),
        Reply(usage={"prompt_tokens": 7, "completion_tokens": 2}, finish_reason="length"),
    )

    parsed = await client.chat.completions.parse(model=MODEL, messages=[USER], response_format=Verdict)
    explicit = await ask(client)

    assert parsed.choices[0].message.parsed == Verdict(verdict="ok", lines=[3, 4])
    sent_format = fake_openai.requests[0]["response_format"]
    assert sent_format["type"] == "json_schema"
    assert sent_format["json_schema"]["strict"] is True
    assert explicit.usage is not None
    assert (explicit.usage.prompt_tokens, explicit.usage.completion_tokens, explicit.usage.total_tokens) == (7, 2, 9)
    assert explicit.choices[0].message.content is None
    assert explicit.choices[0].finish_reason == "length"
    assert fake_openai.usage["requests"] == 2


async def test_tool_call_round_trip(fake_openai: FakeOpenAI, client: openai.AsyncOpenAI) -> None:
    fake_openai.script(
        Reply(tool_calls=[ToolCall("read_page", {"path": "docs/setup.md"}), ToolCall("read_page", '{"path": ')]),
        Reply("The page is stale."),
    )

    first = await ask(client, tools=[READ_PAGE], tool_choice="auto")

    choice = first.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content is None
    calls = choice.message.tool_calls
    assert [(c.id, c.type, c.function.name) for c in calls] == [
        ("call_1", "function", "read_page"),
        ("call_2", "function", "read_page"),
    ]
    assert json.loads(calls[0].function.arguments) == {"path": "docs/setup.md"}
    assert calls[1].function.arguments == '{"path": '  # a string is sent verbatim, broken JSON included
    assert first.usage is not None
    assert first.usage.completion_tokens == math.ceil((len('{"path": "docs/setup.md"}') + len('{"path": ')) / 4)
    assert first.usage.prompt_tokens == math.ceil(
        (len(USER["content"]) + len(json.dumps(READ_PAGE, sort_keys=True))) / 4
    )

    assistant = {"role": "assistant", "content": None, "tool_calls": [c.model_dump() for c in calls]}
    results = [
        {"role": "tool", "tool_call_id": "call_1", "content": "Run make setup."},
        {"role": "tool", "tool_call_id": "call_2", "content": "error: arguments are not JSON"},
    ]
    final = await ask(client, messages=[USER, assistant, *results], tools=[READ_PAGE])

    assert final.choices[0].message.content == "The page is stale."
    assert final.choices[0].finish_reason == "stop"
    assert fake_openai.requests[1]["messages"][2:] == results
    assert fake_openai.usage["prompt_tokens"] == first.usage.prompt_tokens + prompt_tokens(fake_openai.requests[1])
    assert fake_openai.usage["requests"] == 2


@pytest.mark.openai_violations_expected
@pytest.mark.parametrize(
    ("results", "fragment"),
    [
        ([{"role": "tool", "tool_call_id": "call_9", "content": "x"}], "'call_9' not found"),
        ([{"role": "tool", "content": "x"}], "tool_call_id"),
        ([], "did not have response messages: call_1"),
        (
            [
                {"role": "tool", "tool_call_id": "call_1", "content": "x"},
                {"role": "tool", "tool_call_id": "call_1", "content": "y"},
            ],
            "already answered",
        ),
    ],
    ids=["unknown-id", "missing-id", "unanswered", "answered-twice"],
)
async def test_tool_call_id_is_checked(
    fake_openai: FakeOpenAI, client: openai.AsyncOpenAI, results: list[dict[str, Any]], fragment: str
) -> None:
    assistant = {
        "role": "assistant",
        "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "read_page", "arguments": "{}"}}],
    }
    fake_openai.script("never sent")

    with pytest.raises(openai.BadRequestError) as caught:
        await ask(client, messages=[USER, assistant, *results, {"role": "user", "content": "and?"}], tools=[READ_PAGE])

    assert caught.value.status_code == 400
    assert fragment in caught.value.message
    assert caught.value.body["type"] == "invalid_request_error"  # type: ignore[index]
    assert len(fake_openai.violations) == 1
    assert fragment in fake_openai.violations[0]
    assert fake_openai.pending == 1  # a refused request consumes no step


@pytest.mark.openai_violations_expected
async def test_tool_message_must_follow_tool_calls(fake_openai: FakeOpenAI, client: openai.AsyncOpenAI) -> None:
    fake_openai.script("unused")
    with pytest.raises(openai.BadRequestError, match="preceeding message with 'tool_calls'"):
        await ask(client, messages=[USER, {"role": "tool", "tool_call_id": "call_1", "content": "x"}])
    assert len(fake_openai.violations) == 1


# -- errors and the client's retries ---------------------------------------------------------------------
async def test_429_with_retry_after_ms_is_retried(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(
        Failure(429, headers={"retry-after-ms": "10"}, type="requests", code="rate_limit_exceeded"),
        Failure(429, headers={"retry-after-ms": "10"}, type="requests", code="rate_limit_exceeded"),
        Reply("finally"),
    )
    started = time.monotonic()
    async with client_for(fake_openai, max_retries=2) as client:
        completion = await ask(client)

    assert completion.choices[0].message.content == "finally"
    assert time.monotonic() - started < 0.4  # 10 ms waits, not the 0.5 s exponential backoff
    assert [h["x-stainless-retry-count"] for h in fake_openai.headers] == ["0", "1", "2"]
    assert fake_openai.requests[0] == fake_openai.requests[2]
    assert fake_openai.usage["requests"] == 1


async def test_429_out_of_retries_raises_rate_limit_error(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(*[Failure(429, headers={"retry-after": "0.01"}, code="rate_limit_exceeded")] * 2)
    async with client_for(fake_openai, max_retries=1) as client:
        with pytest.raises(openai.RateLimitError) as caught:
            await ask(client)
    assert caught.value.code == "rate_limit_exceeded"
    assert caught.value.message.startswith("Error code: 429")
    assert len(fake_openai.requests) == 2


async def test_retry_after_beyond_two_minutes_is_not_retried(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(Failure(429, headers={"retry-after": "600"}), Reply("unused"))
    async with client_for(fake_openai, max_retries=2) as client:
        with pytest.raises(openai.RateLimitError):
            await ask(client)
    assert len(fake_openai.requests) == 1  # openai gives up at once rather than wait more than 120 s
    assert fake_openai.pending == 1  # (a leftover step is harmless: nothing checks the queue is drained)


async def test_500_raises_internal_server_error_without_retries(
    fake_openai: FakeOpenAI, client: openai.AsyncOpenAI
) -> None:
    fake_openai.script(Failure(500))
    with pytest.raises(openai.InternalServerError) as caught:
        await ask(client)
    assert caught.value.status_code == 500
    assert caught.value.body == {  # the client hands over the inner "error" object
        "message": "The server had an error while processing your request. Sorry about that!",
        "type": "server_error",
        "param": None,
        "code": None,
    }
    assert caught.value.request_id == "req_fake1"
    assert len(fake_openai.requests) == 1
    assert fake_openai.usage == {"prompt_tokens": 0, "completion_tokens": 0, "requests": 0}


async def test_x_should_retry_false_stops_retries(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(Failure(503, headers={"x-should-retry": "false"}), Reply("unused"))
    async with client_for(fake_openai, max_retries=2) as client:
        with pytest.raises(openai.InternalServerError, match="overloaded"):
            await ask(client)
    assert len(fake_openai.requests) == 1
    assert fake_openai.pending == 1


async def test_hang_beyond_the_timeout_raises_api_timeout_error(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(Hang(2.0, then=Reply("too late")))
    started = time.monotonic()
    async with client_for(fake_openai, timeout=0.1) as client:
        with pytest.raises(openai.APITimeoutError):
            await ask(client)
    assert time.monotonic() - started < 1.0
    for _ in range(100):  # the server sees the disconnect a moment later
        if fake_openai.disconnects:
            break
        await asyncio.sleep(0.01)
    assert fake_openai.disconnects == 1
    assert fake_openai.usage["requests"] == 0


async def test_timeouts_are_retried_too(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(Hang(2.0), Hang(0.05, then=Reply("second try")))
    async with client_for(fake_openai, timeout=0.1, max_retries=1) as client:
        completion = await ask(client)
    assert completion.choices[0].message.content == "second try"
    assert [h["x-stainless-retry-count"] for h in fake_openai.headers] == ["0", "1"]
    assert fake_openai.headers[0]["x-stainless-read-timeout"] == "0.1"


async def test_malformed_bodies(fake_openai: FakeOpenAI, client: openai.AsyncOpenAI) -> None:
    """What openai 3.x makes of bodies that are not completions: only some become `openai.APIError`s."""
    fake_openai.script(
        Malformed(b'{"choices": [}'),
        Malformed(b"<html>502 Bad Gateway</html>", content_type="text/html"),
        Malformed(b'{"unexpected": true}'),
        Malformed(b"<html>oops</html>", status=502, content_type="text/html"),
    )

    # Broken JSON under application/json: json.JSONDecodeError escapes, not an openai error.
    with pytest.raises(json.JSONDecodeError):
        await ask(client)
    # A 200 that is not JSON: create() returns the body as a str (no error unless strict validation).
    assert await ask(client) == "<html>502 Bad Gateway</html>"
    # JSON of the wrong shape: a ChatCompletion whose fields are all None (models are built unvalidated).
    odd = await ask(client)
    assert isinstance(odd, openai.types.chat.ChatCompletion)
    assert odd.choices is None
    assert odd.model_extra == {"unexpected": True}
    # An error status with any body: the status error, body as text.
    with pytest.raises(openai.InternalServerError) as caught:
        await ask(client)
    assert caught.value.body == "<html>oops</html>"


async def test_malformed_bodies_under_strict_response_validation(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(
        Malformed(b"<html>502 Bad Gateway</html>", content_type="text/html"),
        Malformed(b'{"unexpected": true}'),
        Malformed(b'{"choices": [}'),
    )
    async with client_for(fake_openai, _strict_response_validation=True) as client:
        with pytest.raises(openai.APIResponseValidationError, match="Content-Type"):
            await ask(client)
        with pytest.raises(openai.APIResponseValidationError, match="invalid for expected schema"):
            await ask(client)
        with pytest.raises(json.JSONDecodeError):  # still not an openai error
            await ask(client)


# -- authentication, models, routes ----------------------------------------------------------------------
@pytest.mark.openai_violations_expected
async def test_unknown_model_is_404(fake_openai: FakeOpenAI, client: openai.AsyncOpenAI) -> None:
    fake_openai.script("unused")
    with pytest.raises(openai.NotFoundError) as caught:
        await ask(client, model="gpt-nope")
    assert caught.value.code == "model_not_found"
    assert "The model `gpt-nope` does not exist" in caught.value.message
    assert fake_openai.violations == [
        "request 1: 404 The model `gpt-nope` does not exist or you do not have access to it. (param None)"
    ]


async def test_bad_api_key_is_401(fake_openai: FakeOpenAI) -> None:
    fake_openai.script("unused")
    async with client_for(fake_openai, api_key="sk-wrong-key") as client:
        with pytest.raises(openai.AuthenticationError) as caught:
            await ask(client)
        with pytest.raises(openai.AuthenticationError):
            await client.models.list()
    assert caught.value.status_code == 401
    assert caught.value.code == "invalid_api_key"
    assert "sk-wrong-key" not in caught.value.message  # masked, as OpenAI does
    assert fake_openai.requests[0]["model"] == MODEL  # recorded all the same
    assert fake_openai.pending == 1
    assert fake_openai.violations == []  # a wrong key is the client's setup, not a malformed request


async def test_models_are_listed(fake_openai: FakeOpenAI, client: openai.AsyncOpenAI) -> None:
    fake_openai.models = ("test-model", "other-model")
    page = await client.models.list()
    assert [m.id for m in page.data] == ["test-model", "other-model"]
    assert fake_openai.requests == []  # only chat requests are recorded


@pytest.mark.openai_violations_expected
async def test_unknown_route_is_404_and_a_violation(fake_openai: FakeOpenAI, client: openai.AsyncOpenAI) -> None:
    with pytest.raises(openai.NotFoundError, match=r"Invalid URL \(POST /v1/embeddings\)"):
        await client.embeddings.create(model=MODEL, input="hello")
    assert fake_openai.violations == ["POST /v1/embeddings: the fake OpenAI has no such route"]


# -- the responder ---------------------------------------------------------------------------------------
async def test_responder_answers_when_the_queue_is_empty(fake_openai: FakeOpenAI, client: openai.AsyncOpenAI) -> None:
    seen: list[str] = []

    def responder(body: dict[str, Any]) -> Reply:
        seen.append(body["messages"][-1]["content"])
        return Reply(body["messages"][-1]["content"].upper())

    fake_openai.responder = responder
    fake_openai.script("scripted first")

    answers = [
        (await ask(client, messages=[{"role": "user", "content": text}])).choices[0].message.content
        for text in ("a", "b", "c")
    ]

    assert answers == ["scripted first", "B", "C"]
    assert seen == ["b", "c"]

    async def slow_responder(body: dict[str, Any]) -> Failure:
        return Failure(503)

    fake_openai.responder = slow_responder
    with pytest.raises(openai.InternalServerError):
        await ask(client)


@pytest.mark.openai_violations_expected
async def test_no_scripted_answer_is_500_and_a_violation(fake_openai: FakeOpenAI, client: openai.AsyncOpenAI) -> None:
    with pytest.raises(openai.InternalServerError, match="no scripted answer"):
        await ask(client)
    assert fake_openai.violations == ["request 1: no scripted answer (script a step or set a responder)"]


def test_script_refuses_what_is_not_a_step() -> None:
    with pytest.raises(TypeError):
        FakeOpenAI().script({"content": "a dict is not a step"})  # type: ignore[arg-type]


# -- requests OpenAI would refuse ------------------------------------------------------------------------
STRICT_LOOSE = {"type": "object", "properties": {"a": {"type": "string"}}}
INVALID = {
    "missing-model": ({"model": None}, 400, "you must provide a model parameter"),
    "missing-messages": ({"messages": None}, 400, "Missing required parameter: 'messages'"),
    "empty-messages": ({"messages": []}, 400, "empty array"),
    "bad-role": ({"messages": [{"role": "bot", "content": "x"}]}, 400, "Invalid value: 'bot'"),
    "no-role": ({"messages": [{"content": "x"}]}, 400, "messages[0].role"),
    "user-without-content": ({"messages": [{"role": "user"}]}, 400, "messages[0].content"),
    "tool-not-a-function": ({"tools": [{"type": "retrieval"}]}, 400, "Supported values are: 'function'"),
    "tool-without-function": ({"tools": [{"type": "function"}]}, 400, "tools[0].function"),
    "tool-bad-name": (
        {"tools": [{"type": "function", "function": {"name": "read page"}}]},
        400,
        "does not match pattern",
    ),
    "tool-unknown-key": (
        {"tools": [{"type": "function", "function": {"name": "f", "params": {}}}]},
        400,
        "tools[0].function.params",
    ),
    "tool-strict-loose-schema": (
        {"tools": [{"type": "function", "function": {"name": "f", "strict": True, "parameters": STRICT_LOOSE}}]},
        400,
        "'additionalProperties' is required",
    ),
    "empty-tools": ({"tools": []}, 400, "Invalid 'tools': empty array"),
    "tool-choice-without-tools": ({"tool_choice": "auto"}, 400, "only allowed when 'tools' are specified"),
    "format-unknown-type": ({"response_format": {"type": "yaml"}}, 400, "Invalid value: 'yaml'"),
    "format-json-object-without-json": (
        {"response_format": {"type": "json_object"}},
        400,
        "must contain the word 'json'",
    ),
    "format-schema-missing": ({"response_format": {"type": "json_schema"}}, 400, "response_format.json_schema"),
    "format-schema-no-name": (
        {"response_format": {"type": "json_schema", "json_schema": {"schema": SCHEMA}}},
        400,
        "json_schema.name",
    ),
    "format-schema-not-object": (
        {"response_format": {"type": "json_schema", "json_schema": {"name": "v", "schema": "string"}}},
        400,
        "json_schema.schema",
    ),
    "format-strict-missing-required": (
        {
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "v", "strict": True, "schema": {**SCHEMA, "required": ["verdict"]}},
            }
        },
        400,
        "Missing 'reason'",
    ),
    "stream": ({"stream": True}, 400, "stream=true is not supported"),
    "n": ({"n": 2}, 400, "n other than 1 is not supported"),
}


@pytest.mark.openai_violations_expected
@pytest.mark.parametrize(("changes", "status", "fragment"), list(INVALID.values()), ids=list(INVALID))
async def test_invalid_requests_are_refused_and_recorded(
    fake_openai: FakeOpenAI, client: openai.AsyncOpenAI, changes: dict[str, Any], status: int, fragment: str
) -> None:
    body = {k: v for k, v in {"model": MODEL, "messages": [USER], **changes}.items() if v is not None}
    fake_openai.script("unused")

    with pytest.raises(openai.APIStatusError) as caught:
        await client.post("/chat/completions", body=body, cast_to=object)  # the raw route: create() needs a model

    assert caught.value.status_code == status
    assert fragment in caught.value.message
    assert caught.value.body["type"] == "invalid_request_error"  # type: ignore[index]
    assert len(fake_openai.violations) == 1
    assert fragment in fake_openai.violations[0]
    assert fake_openai.pending == 1


@pytest.mark.parametrize(
    "changes",
    [
        {"response_format": {"type": "text"}},
        {
            "response_format": {"type": "json_object"},
            "messages": [{"role": "developer", "content": "Answer in JSON."}, USER],
        },
        {"response_format": {"type": "json_schema", "json_schema": {"name": "v", "schema": {"type": "object"}}}},
        {"tools": [READ_PAGE], "tool_choice": {"type": "function", "function": {"name": "read_page"}}},
        {"tools": [{"type": "function", "function": {"name": "no_parameters"}}], "tool_choice": "required"},
        {
            "seed": 1,
            "user": "wikiwarden",
            "metadata": {"a": "b"},
            "max_completion_tokens": 100,
            "stream": False,
            "n": 1,
        },
        {"messages": [{"role": "user", "content": [{"type": "text", "text": "parts"}]}]},
    ],
    ids=["text", "json-object", "loose-schema", "tool-choice", "required-tool", "other-keys", "content-parts"],
)
async def test_valid_requests_pass(
    fake_openai: FakeOpenAI, client: openai.AsyncOpenAI, changes: dict[str, Any]
) -> None:
    fake_openai.script("fine")
    completion = await ask(client, **changes)
    assert completion.choices[0].message.content == "fine"


@pytest.mark.openai_violations_expected
async def test_a_body_that_is_not_json_is_400(fake_openai: FakeOpenAI, client: openai.AsyncOpenAI) -> None:
    with pytest.raises(openai.BadRequestError, match="could not parse the JSON body"):
        await client.post(
            "/chat/completions",
            content=b"{nope",
            cast_to=object,
            options={"headers": {"Content-Type": "application/json"}},
        )
    assert fake_openai.requests == ["{nope"]
    assert fake_openai.violations == ["request 1: the body is not JSON"]


# -- the fixture's teardown ------------------------------------------------------------------------------
def test_fixture_fails_a_test_with_unexpected_violations(pytester: pytest.Pytester) -> None:
    pytester.makeini(
        "[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\naddopts = --strict-markers\n"
    )
    pytester.makeconftest('pytest_plugins = ["fakeopenai.fixtures"]\n')
    pytester.makepyfile(
        """
        import openai
        import pytest

        async def ask(fake):
            async with openai.AsyncOpenAI(base_url=fake.base_url, api_key=fake.api_key, max_retries=0) as client:
                with pytest.raises(openai.NotFoundError):
                    await client.chat.completions.create(model="nope", messages=[{"role": "user", "content": "x"}])

        async def test_unexpected(fake_openai):
            await ask(fake_openai)

        @pytest.mark.openai_violations_expected
        async def test_expected(fake_openai):
            await ask(fake_openai)
        """
    )
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(
        ["*the fake OpenAI recorded 1 violation(s):*", "*request 1: 404 The model `nope` does not exist*"]
    )
