"""`DeliveryMemory`: the seen-set of deliveries at the door and in the in-process queue (a replay keeps its id)."""

from __future__ import annotations

import random

import pytest

from bot.jobs import DeliveryMemory


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_key_is_new_once_then_seen() -> None:
    memory = DeliveryMemory(10, 60)
    assert memory.remember("a") is True
    assert memory.remember("a") is False
    assert memory.remember("b") is True
    assert len(memory) == 2


def test_a_key_is_seen_for_its_lifetime_and_new_again_at_its_end() -> None:
    clock = Clock()
    memory = DeliveryMemory(10, 60, clock)
    memory.remember("a")
    clock.now += 59.999
    assert memory.remember("a") is False  # a replay within the lifetime changes nothing: its end stays
    clock.now = 1060.0
    assert memory.remember("a") is True  # expired exactly at its end, as cachetools' TTLCache does
    assert len(memory) == 1


def test_only_the_expired_keys_are_let_go() -> None:
    clock = Clock()
    memory = DeliveryMemory(10, 60, clock)
    memory.remember("old")
    clock.now += 30
    memory.remember("young")
    clock.now += 45  # "old" is 75 s old, "young" 45 s
    assert memory.remember("other") is True
    assert len(memory) == 2
    assert memory.remember("young") is False
    assert memory.remember("old") is True


def test_when_full_the_oldest_key_is_let_go() -> None:
    memory = DeliveryMemory(3, 60)
    for key in "abcd":
        assert memory.remember(key) is True
    assert len(memory) == 3
    assert memory.remember("d") is False and memory.remember("c") is False and memory.remember("b") is False
    assert memory.remember("a") is True  # the one let go, now the newest: "b" goes
    assert memory.remember("b") is True


def test_a_forgotten_key_is_new_again_and_forgetting_an_unknown_key_is_harmless() -> None:
    memory = DeliveryMemory(10, 60)
    memory.remember("a")
    memory.forget("a")
    memory.forget("never seen")
    assert len(memory) == 0
    assert memory.remember("a") is True


def test_a_memory_without_room_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one"):
        DeliveryMemory(0, 60)


@pytest.mark.parametrize("seed", range(5))
def test_it_answers_as_a_plain_model_of_keys_and_ends(seed: int) -> None:
    """Random remembering, forgetting and waiting, against a dict of each key's end with the same rules written
    plainly: expired keys (end at or before now) go, then the oldest remembered when full."""
    rng = random.Random(seed)
    clock = Clock()
    size, seconds = rng.randint(1, 6), rng.choice([5.0, 20.0])
    memory = DeliveryMemory(size, seconds, clock)
    ends: dict[str, float] = {}  # insertion-ordered, like the memory
    for _ in range(2000):
        clock.now += rng.choice([0.0, 0.5, 1.0, 3.0, seconds])
        key = rng.choice("abcdefgh")
        if rng.random() < 0.15:
            memory.forget(key)
            ends.pop(key, None)
            continue
        ends = {k: end for k, end in ends.items() if end > clock.now}
        expected = key not in ends
        if expected:
            if len(ends) >= size:
                del ends[next(iter(ends))]
            ends[key] = clock.now + seconds
        assert memory.remember(key) is expected
        assert len(memory) == len(ends)
