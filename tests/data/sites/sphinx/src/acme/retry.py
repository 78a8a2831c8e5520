"""Retries."""


def retry(call, attempts=3):
    """Call `call` until it answers."""
    for attempt in range(attempts):
        answer = call(attempt)
        if answer is not None:
            return answer
    raise RuntimeError("gave up")
