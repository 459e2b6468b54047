"""Modern syntax: match, decorators, walrus, async, annotations, continuations."""
from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Callable

__version__: str = "3.1.4"
x: int = 5
a = b = 1
t1, t2 = 1, 2
counter = 0
counter += 1
one = 1; two = 2; three = "three"
if True: inline_if = 1; also_inline = 2
class Inline: attr = 1
def inline_def(): return 1
f = lambda q=1, *, r=2: q + r
type Alias = list[int]
type = "the soft keyword as a name"
match = {"soft": "keyword"}
case = [match]
_ = 0
données = "non-ASCII identifier"
ключ = "ключ"
long_sum = 1 + \
    2
joined = "line one " \
    "line two"
implicit = ("a"
            "b"  # a comment between the parts
            'c')
multi_target = {
    "key": "value",
}  # closing bracket at column 0


@dataclass
class Point:
    x: int = 0
    y: int = field(default=0)
    __version__ = "not module level"


def decorator(fn: Callable[..., int]) -> Callable[..., int]:
    return fn


@decorator
async def fetch(url: str, *, timeout: float = 1.5) -> int:
    async with asyncio.timeout(timeout):
        await asyncio.sleep(0)
    return 0


def describe(command: object) -> str:
    match command:
        case {"action": "go", "direction": str(d)}:
            return d
        case [Point(x=0, y=0), *rest] if (n := len(rest)) > 0:
            return str(n)
        case _:
            return ""


if (walrus := 10) > 5:
    inside_if = "not module level"
else:
    inside_else = "not module level"

try:
    import tomllib
except ImportError:
    tomllib = None

CONFIG = {"mode": "fast", "retries": 3, "ratio": -0.5, "big": 123_456_789, "hex": 0xFF, "bin": 0b1010}
