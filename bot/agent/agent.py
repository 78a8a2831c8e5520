"""The agent: one conversation per page with the claims the change made stale. It may call read-only tools,
must answer in the strict JSON schema, and gets one chance to correct a refused answer; after that the claims
it could not settle stay flagged with the reason. Every call is paid from the run's and the day's budget."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, Literal, Protocol, TypeVar, cast

import openai
from openai.types.chat import ChatCompletion
from pydantic import BaseModel, ValidationError

from ..claims.resources import parse_resource
from ..claims.text import FileText
from ..fix.answer import PageAnswer, answer_schema
from ..fix.check import Checked, check_answer
from ..fix.engine import PageDecisions, Usage
from ..fix.view import CodeView
from ..fix.work import PageWork
from ..ground.answer import GroundAnswer, ground_schema
from ..ground.check import CheckedGrounding, check_grounding
from ..ground.work import GroundWork
from ..metrics import MODEL_CALLS, MODEL_TOKENS
from ..settings import ModelSettings
from .budget import AnswerCache, Budget
from .prompts import GROUND_SYSTEM, SYSTEM, ground_prompt, page_prompt, refusal
from .tools import TOOLS, run_tool

log = logging.getLogger(__name__)


class Judged(Protocol):
    """A checked answer: what was refused in it, for the model to correct."""

    @property
    def problems(self) -> list[str]: ...


T = TypeVar("T", bound=Judged)
MAX_ROUNDS = 8
MAX_COMPLETION_TOKENS = 4000
TOOLS_TOKENS = len(json.dumps(TOOLS)) // 4 + 1  # the tool schemas ride along with every request
RESPONSE_FORMAT = {"type": "json_schema", "json_schema": answer_schema()}  # built once, sent with every request
GROUND_FORMAT = {"type": "json_schema", "json_schema": ground_schema()}


def make_client(
    settings: ModelSettings, http_client: openai.DefaultAsyncHttpxClient | None = None
) -> openai.AsyncOpenAI:
    """The openai client for the configured OpenAI-compatible server (a local one may not need a key)."""
    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else None
    return openai.AsyncOpenAI(
        base_url=settings.openai_base_url,
        api_key=key or "not-needed",
        timeout=settings.model_timeout_seconds,
        max_retries=settings.model_max_retries,
        http_client=http_client,
    )


def _describe(exc: openai.APIError) -> str:
    if isinstance(exc, openai.APITimeoutError):
        return "the model did not answer in time"
    if isinstance(exc, openai.RateLimitError):
        return "the model's server kept answering 429 (rate limited)"
    if isinstance(exc, openai.APIStatusError):
        return f"the model's server answered {exc.status_code}"
    if isinstance(exc, openai.APIConnectionError):
        return "the model's server could not be reached"
    return f"the model's answer could not be read ({type(exc).__name__})"


async def code_digest(paths: Iterable[str], view: CodeView) -> dict[str, str]:
    """Each path's contents at the head as a SHA-256 (or that it is missing or unreadable): an answer holds only
    for the code it was about."""
    digest = {}
    for path in sorted(set(paths)):
        text = await view.read(path)
        if isinstance(text, FileText):
            digest[path] = hashlib.sha256(text.data).hexdigest()
        else:
            digest[path] = "missing" if text is None else f"unreadable: {text.message}"
    return digest


def _paths(resources: Iterable[str]) -> set[str]:
    paths = set()
    for resource in resources:
        try:
            paths.add(parse_resource(resource).path)
        except ValueError:
            continue  # an answer citing it was refused: never cached
    return paths


class PaidFix(BaseModel):
    """A fix answer as the cache keeps it: with the contents of the code its new evidence cites (path → SHA-256),
    so it is taken again only while that code is the same."""

    answer: PageAnswer
    code: dict[str, str]


class PaidGrounding(BaseModel):
    """A grounding answer as the cache keeps it, with the contents of the code its claims cite."""

    answer: GroundAnswer
    code: dict[str, str]


class Agent:
    """The model, for one repository (`scope`: who it is, in the answer cache's keys: an answer one repository paid
    for is never another's, however alike their pages and code)."""

    def __init__(
        self,
        client: openai.AsyncOpenAI,
        model: str,
        budget: Budget,
        cache: AnswerCache | None = None,
        scope: str | None = None,
    ) -> None:
        self.client = client
        self.model = model
        self.budget = budget
        self.cache = cache or AnswerCache()
        self.scope = scope if scope is not None else budget.repo

    def _cache_key(self, work: PageWork) -> str:
        """What a fix answer was about: the repository, the page, its claims to decide and their evidence's versions
        (a version is a hash of the evidence's text), before and now."""
        claims = []
        for item in work.to_decide:
            versions = [(e.resource, e.version, e.resource_now, e.version_now) for e in item.result.evidence]
            claims.append((item.claim.id, item.claim.statement, versions))
        return AnswerCache.key(self.model, "fix", self.scope, work.page, work.text, claims)

    async def _ground_key(self, work: GroundWork, view: CodeView) -> str:
        """What a grounding answer was about: the repository, the page, and its candidates with the contents of
        their files (the same resources over other code are another question)."""
        candidates = [c.resource for c in work.candidates]
        code = await code_digest(_paths(candidates), view)
        return AnswerCache.key(self.model, "ground", self.scope, work.page, work.text, candidates, code)

    async def decide(self, work: PageWork, view: CodeView, wiki_dir: str) -> PageDecisions:
        """Settle the claims the change made stale on one page: confirm, update or retract each, prose edited."""
        usage = Usage()
        key = self._cache_key(work)
        paid = await self.cache.get(key, PaidFix)
        if paid is not None and paid.code == await code_digest(paid.code, view):
            checked = await check_answer(paid.answer, work, view, wiki_dir)
            if checked.ok:  # the same claims, the same evidence, the same code cited: the same answer, at no cost
                usage.reused = 1
                return PageDecisions(checked, usage=usage)
        answered: list[PageAnswer] = []

        async def judge(content: str) -> tuple[Checked, bool]:
            try:
                answer = PageAnswer.model_validate_json(content)
            except ValidationError as exc:
                return Checked(
                    text=work.text, other_problems=[f"the answer is not the required JSON: {_short(exc)}"]
                ), False
            answered.append(answer)
            checked = await check_answer(answer, work, view, wiki_dir)
            return checked, checked.ok

        end = await self._converse(SYSTEM, page_prompt(work), RESPONSE_FORMAT, view, judge, usage, work.page)
        if end.accepted is not None:
            cited = _paths(r for decision in answered[-1].claims for r in decision.evidence or ())
            await self.cache.put(key, PaidFix(answer=answered[-1], code=await code_digest(cited, view)))
            return PageDecisions(end.accepted, usage=usage)
        return self._flag_all(work, end.last, usage, end.failure or "no answer")

    async def _converse(
        self,
        system: str,
        prompt: str,
        response_format: dict[str, Any],
        view: CodeView,
        judge: Callable[[str], Awaitable[tuple[T, bool]]],
        usage: Usage,
        page: str,
    ) -> Ending[T]:
        """One conversation about one page: the model may call the read-only tools, must answer in the strict
        schema, and gets one chance to correct a refused answer. Every call is paid from the budget; whatever
        goes wrong (the budget, the server, a nonsense answer) ends it with the reason in words."""
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": system},
            {"role": "user", "content": prompt},
        ]
        refused: T | None = None
        for _ in range(MAX_ROUNDS):
            sent = sum(len(str(m.get("content") or "")) for m in messages) // 4 + TOOLS_TOKENS
            estimate = sent + MAX_COMPLETION_TOKENS
            if await self.budget.room() < estimate:
                return Ending(refused, "the token budget (per run or per day) is spent")
            try:
                response = await self.client.chat.completions.create(
                    model=self.model,
                    # Plain JSON shapes: the client's TypedDicts differ between its versions.
                    messages=cast(Any, messages),
                    tools=cast(Any, TOOLS),
                    response_format=cast(Any, response_format),
                    max_completion_tokens=MAX_COMPLETION_TOKENS,
                )
            except openai.APIError as exc:
                MODEL_CALLS.labels("failed").inc()
                log.warning("model call failed: %s", type(exc).__name__, extra={"page": page})
                return Ending(refused, _describe(exc))
            except ValueError:  # the client raises a bare JSONDecodeError on a broken body
                MODEL_CALLS.labels("failed").inc()
                log.warning("model answer unreadable", extra={"page": page})
                return Ending(refused, "the model's server sent a body that is not JSON")
            usage.calls += 1
            MODEL_CALLS.labels("answered").inc()
            completion = _completion(response)
            if completion is None:  # a 200 that is not JSON, or JSON of another shape
                return Ending(refused, "the model's server sent something other than a completion")
            if completion.usage is not None:
                spent_prompt = max(0, completion.usage.prompt_tokens)
                spent_completion = max(0, completion.usage.completion_tokens)
                usage.prompt_tokens += spent_prompt
                usage.completion_tokens += spent_completion
                await self.budget.spend(spent_prompt + spent_completion)
                MODEL_TOKENS.labels("prompt").inc(spent_prompt)
                MODEL_TOKENS.labels("completion").inc(spent_completion)
            message = completion.choices[0].message if completion.choices else None
            if message is None:
                return Ending(refused, "the model sent no answer")
            if message.tool_calls:
                calls = message.tool_calls
                messages.append(
                    {
                        "role": "assistant",
                        "content": message.content,
                        "tool_calls": [
                            {
                                "id": c.id,
                                "type": "function",
                                "function": {"name": c.function.name, "arguments": c.function.arguments},
                            }
                            for c in calls
                        ],
                    }
                )
                for call in calls:
                    result = await run_tool(call.function.name, call.function.arguments, view)
                    messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
                continue
            content = message.content or ""
            checked, ok = await judge(content)
            if ok:
                return Ending(refused, None, checked)
            if refused is not None:  # refused twice: the caller keeps what passed, and flags the rest
                return Ending(checked, "its answer was refused twice")
            refused = checked
            messages.append({"role": "assistant", "content": content})
            messages.append({"role": "user", "content": refusal(checked.problems)})
        return Ending(refused, f"the model did not settle the page within {MAX_ROUNDS} rounds")

    async def ground(self, work: GroundWork, view: CodeView, wiki_dir: str) -> GroundDecisions:
        """Ground one page: its claims with quotes and evidence, prose corrections, what it could not support.
        When the answer is refused twice, the claims that passed are kept and the rest listed as refused."""
        usage = Usage()
        key = await self._ground_key(work, view)
        paid = await self.cache.get(key, PaidGrounding)
        if paid is not None and paid.code == await code_digest(paid.code, view):
            checked = await check_grounding(paid.answer, work.page, work.text, view, wiki_dir, work.statements)
            if checked.ok:
                usage.reused = 1
                return GroundDecisions(checked, None, usage)
        answered: list[GroundAnswer] = []

        async def judge(content: str) -> tuple[CheckedGrounding, bool]:
            try:
                answer = GroundAnswer.model_validate_json(content)
            except ValidationError as exc:
                problem = f"the answer is not the required JSON: {_short(exc)}"
                return CheckedGrounding(work.text, problems=[problem]), False
            answered.append(answer)
            checked = await check_grounding(answer, work.page, work.text, view, wiki_dir, work.statements)
            return checked, checked.ok

        end = await self._converse(GROUND_SYSTEM, ground_prompt(work), GROUND_FORMAT, view, judge, usage, work.page)
        if end.accepted is not None:
            cited = _paths(r for claim in answered[-1].claims for r in claim.evidence)
            await self.cache.put(key, PaidGrounding(answer=answered[-1], code=await code_digest(cited, view)))
            return GroundDecisions(end.accepted, None, usage)
        if end.last is not None and end.last.trespass:  # an answer reaching beyond its page is not trusted at all
            why = f"{end.failure}: it tried to change {end.last.trespass[0]!r}, which grounding may never touch"
            return GroundDecisions(None, why, usage)
        why = end.failure or "no answer"
        if end.last is not None and end.last.problems and not end.last.refused:  # else each refused claim says why
            why = f"{why}: {end.last.problems[0]}"
        return GroundDecisions(end.last, why, usage)

    def _flag_all(self, work: PageWork, checked: Checked | None, usage: Usage, why: str) -> PageDecisions:
        """Keep the decisions that passed (confirms only, when the prose edits did not pass), flag the rest."""
        flagged: dict[str, str] = {}
        kept = Checked(text=work.text)
        if checked is not None and checked.trespass:  # an answer reaching beyond its page is not trusted at all
            why = f"{why}: it tried to change {checked.trespass[0]!r}, which the fix may never touch"
            return PageDecisions(kept, {item.claim.id: why for item in work.to_decide}, usage)
        edits_passed = checked is not None and not any(p.startswith("edit refused") for p in checked.other_problems)
        for item in work.to_decide:
            decision = checked.decisions.get(item.claim.id) if checked else None
            if decision is not None and (decision.action == "confirm" or edits_passed):
                kept.decisions[item.claim.id] = decision
                continue
            detail = checked.claim_problems.get(item.claim.id) if checked else None
            if decision is not None:
                detail = "its decision needs prose edits that were refused"
            if detail is None and checked is not None and checked.other_problems:
                detail = checked.other_problems[0]
            flagged[item.claim.id] = f"{why}" + (f": {detail}" if detail else "")
        if checked is not None and edits_passed:
            kept.text = checked.text
        return PageDecisions(kept, flagged=flagged, usage=usage)


@dataclass
class GroundDecisions:
    """What the model settled for one page to ground: the checked answer (its accepted claims and edits; the
    refused ones listed), or None, and why it did not settle."""

    checked: CheckedGrounding | None
    failure: str | None
    usage: Usage


@dataclass(frozen=True)
class Ending(Generic[T]):
    """How a conversation ended: the answer the checks accepted, else the last one refused and why."""

    last: T | None
    failure: str | None
    accepted: T | None = None


class _Function(BaseModel):
    name: str
    arguments: str


class _ToolCall(BaseModel):
    id: str
    type: Literal["function"] = "function"
    function: _Function


class _Message(BaseModel):
    content: str | None = None
    tool_calls: list[_ToolCall] | None = None


class _Choice(BaseModel):
    message: _Message | None = None


class _Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0


class _Completion(BaseModel):
    """The parts of a chat completion the agent reads, and nothing more: lenient servers omit the rest."""

    choices: list[_Choice]
    usage: _Usage | None = None


def _completion(response: object) -> _Completion | None:
    """The response checked: the client builds a ChatCompletion from any 200 body without validating it."""
    if not isinstance(response, ChatCompletion):  # a 200 that is not JSON comes back as a str
        return None
    try:
        return _Completion.model_validate(response.model_dump(warnings=False))
    except (ValidationError, TypeError, ValueError, AttributeError):
        return None


def _short(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"])
    return f"{where}: {first['msg']}" if where else first["msg"]
