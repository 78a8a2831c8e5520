"""Check runs as GitHub validates and stores them: the status/conclusion rules, output and annotation limits,
action buttons, and updates that merge fields and append annotations."""

from __future__ import annotations

from datetime import datetime
from typing import Any

STATUSES = ("queued", "in_progress", "completed")
CONCLUSIONS = ("action_required", "cancelled", "failure", "neutral", "success", "skipped", "timed_out")
LEVELS = ("notice", "warning", "failure")
MAX_TEXT = 65535  # output.summary and output.text, characters
MAX_ANNOTATION_BYTES = 64 * 1024  # annotation message and raw_details
MAX_ANNOTATION_TITLE = 255
MAX_ANNOTATIONS = 50  # per request; more come in further PATCHes and are appended
MAX_ACTIONS = 3
ACTION_LIMITS = {"label": 20, "description": 40, "identifier": 20}


def _error(field: str, code: str, message: str) -> dict[str, str]:
    return {"resource": "CheckRun", "field": field, "code": code, "message": message}


def _is_time(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def _optional_str(body: dict[str, Any], key: str, errors: list[dict[str, str]]) -> None:
    if key in body and body[key] is not None and not isinstance(body[key], str):
        errors.append(_error(key, "invalid", f"{key} must be a string"))


def validate(body: Any, *, create: bool, current: dict[str, Any] | None = None) -> list[dict[str, str]]:
    """The validation errors of a create (POST) or update (PATCH) body; empty when GitHub would accept it."""
    if not isinstance(body, dict):
        return [_error("body", "invalid", "the body must be a JSON object")]
    errors: list[dict[str, str]] = []
    if create:
        for key in ("name", "head_sha"):
            if not isinstance(body.get(key), str) or not body[key]:
                errors.append(_error(key, "missing_field", f"{key} is required"))
    elif "name" in body and (not isinstance(body["name"], str) or not body["name"]):
        errors.append(_error("name", "invalid", "name must be a non-empty string"))
    for key in ("details_url", "external_id"):
        _optional_str(body, key, errors)
    for key in ("started_at", "completed_at"):
        if body.get(key) is not None and not _is_time(body[key]):
            errors.append(_error(key, "invalid", f"{key} must be an ISO 8601 timestamp"))

    status = body.get("status")
    conclusion = body.get("conclusion")
    if "status" in body and status not in STATUSES:
        errors.append(_error("status", "invalid", f"status must be one of {', '.join(STATUSES)}, not {status!r}"))
    if conclusion is not None and conclusion not in CONCLUSIONS:
        errors.append(
            _error("conclusion", "invalid", f"conclusion must be one of {', '.join(CONCLUSIONS)}, not {conclusion!r}")
        )
    has_conclusion = conclusion is not None or (current is not None and current.get("conclusion") is not None)
    if status == "completed" and not has_conclusion:
        errors.append(_error("conclusion", "custom", "a conclusion is required when status is completed"))

    if "output" in body:
        errors += _validate_output(body["output"])
    if "actions" in body:
        errors += _validate_actions(body["actions"])
    return errors


def _validate_output(output: Any) -> list[dict[str, str]]:
    if not isinstance(output, dict):
        return [_error("output", "invalid", "output must be an object")]
    errors = []
    for key in ("title", "summary"):
        if not isinstance(output.get(key), str):
            errors.append(_error(f"output.{key}", "missing_field", f"output.{key} is required"))
    for key in ("summary", "text"):
        value = output.get(key)
        if value is not None and not isinstance(value, str):
            errors.append(_error(f"output.{key}", "invalid", f"output.{key} must be a string"))
        elif isinstance(value, str) and len(value) > MAX_TEXT:
            errors.append(
                _error(f"output.{key}", "custom", f"output.{key} is too long ({len(value)} > {MAX_TEXT} characters)")
            )
    annotations = output.get("annotations")
    if annotations is not None:
        if not isinstance(annotations, list):
            errors.append(_error("output.annotations", "invalid", "annotations must be an array"))
        else:
            if len(annotations) > MAX_ANNOTATIONS:
                errors.append(
                    _error(
                        "output.annotations",
                        "custom",
                        f"at most {MAX_ANNOTATIONS} annotations per request ({len(annotations)} given)",
                    )
                )
            for index, annotation in enumerate(annotations):
                errors += _validate_annotation(index, annotation)
    images = output.get("images")
    if images is not None:
        if not isinstance(images, list):
            errors.append(_error("output.images", "invalid", "images must be an array"))
        else:
            for index, image in enumerate(images):
                if not isinstance(image, dict) or not all(isinstance(image.get(k), str) for k in ("alt", "image_url")):
                    errors.append(
                        _error(f"output.images[{index}]", "missing_field", "an image needs alt and image_url")
                    )
    return errors


def _validate_annotation(index: int, annotation: Any) -> list[dict[str, str]]:
    where = f"output.annotations[{index}]"
    if not isinstance(annotation, dict):
        return [_error(where, "invalid", "an annotation must be an object")]
    errors = []
    if not isinstance(annotation.get("path"), str) or not annotation["path"]:
        errors.append(_error(f"{where}.path", "missing_field", "path is required"))
    for key in ("start_line", "end_line"):
        value = annotation.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            errors.append(_error(f"{where}.{key}", "missing_field", f"{key} is required (a line number from 1)"))
    start, end = annotation.get("start_line"), annotation.get("end_line")
    if isinstance(start, int) and isinstance(end, int) and end < start:
        errors.append(_error(f"{where}.end_line", "custom", "end_line is before start_line"))
    for key in ("start_column", "end_column"):
        if annotation.get(key) is None:
            continue
        if not isinstance(annotation[key], int) or annotation[key] < 1:
            errors.append(_error(f"{where}.{key}", "invalid", f"{key} must be a column number from 1"))
        elif start != end:
            errors.append(_error(f"{where}.{key}", "custom", f"{key} is only allowed when start_line equals end_line"))
    if annotation.get("annotation_level") not in LEVELS:
        errors.append(
            _error(f"{where}.annotation_level", "missing_field", f"annotation_level must be one of {', '.join(LEVELS)}")
        )
    if not isinstance(annotation.get("message"), str):
        errors.append(_error(f"{where}.message", "missing_field", "message is required"))
    for key in ("message", "raw_details"):
        value = annotation.get(key)
        if isinstance(value, str) and len(value.encode()) > MAX_ANNOTATION_BYTES:
            errors.append(_error(f"{where}.{key}", "custom", f"{key} is longer than 64 KB"))
        elif value is not None and not isinstance(value, str):
            errors.append(_error(f"{where}.{key}", "invalid", f"{key} must be a string"))
    title = annotation.get("title")
    if title is not None and (not isinstance(title, str) or len(title) > MAX_ANNOTATION_TITLE):
        errors.append(_error(f"{where}.title", "custom", f"title must be a string of at most {MAX_ANNOTATION_TITLE}"))
    return errors


def _validate_actions(actions: Any) -> list[dict[str, str]]:
    if not isinstance(actions, list):
        return [_error("actions", "invalid", "actions must be an array")]
    errors = []
    if len(actions) > MAX_ACTIONS:
        errors.append(_error("actions", "custom", f"at most {MAX_ACTIONS} actions ({len(actions)} given)"))
    for index, action in enumerate(actions):
        if not isinstance(action, dict):
            errors.append(_error(f"actions[{index}]", "invalid", "an action must be an object"))
            continue
        for key, limit in ACTION_LIMITS.items():
            value = action.get(key)
            if not isinstance(value, str) or not value:
                errors.append(_error(f"actions[{index}].{key}", "missing_field", f"{key} is required"))
            elif len(value) > limit:
                errors.append(
                    _error(f"actions[{index}].{key}", "custom", f"{key} is too long (maximum is {limit} characters)")
                )
    return errors


def apply(run: dict[str, Any], body: dict[str, Any], now: str) -> None:
    """Merge a validated create/update body into a stored run; annotations are appended."""
    for key in ("name", "details_url", "external_id", "started_at", "completed_at"):
        if key in body:
            run[key] = body[key]
    if "status" in body:
        run["status"] = body["status"]
    if body.get("conclusion") is not None:
        run["conclusion"] = body["conclusion"]
        run["status"] = "completed"  # a conclusion implies completed
    if run["status"] == "completed":
        run["completed_at"] = run.get("completed_at") or now
    elif "status" in body:
        run["conclusion"] = None
        run["completed_at"] = None
    if "output" in body:
        output = body["output"]
        stored = run.setdefault("output", {})
        for key in ("title", "summary", "text"):
            if key in output:
                stored[key] = output[key]
        if "images" in output:
            stored["images"] = list(output["images"] or [])
        run["annotations"].extend(dict(a) for a in output.get("annotations") or [])
    if "actions" in body:
        run["actions"] = list(body["actions"])
