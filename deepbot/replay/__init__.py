"""Replay: bring a person (or a check) back to a stored page by its NSEQL program.

- ``run``: parse a program and run it in a fresh browser context.
- ``compare``: did the replay reach the stored page (pure functions).
"""

from deepbot.errors import ReplayStepError
from deepbot.replay.compare import FINGERPRINT, SIMILARITY_THRESHOLD, PageFacts, PageMatch, compare_pages
from deepbot.replay.run import (
    DocumentReplay,
    ReplayResult,
    load_program,
    replay,
    replay_document,
    replay_in_browser,
)

__all__ = [
    "FINGERPRINT",
    "SIMILARITY_THRESHOLD",
    "DocumentReplay",
    "PageFacts",
    "PageMatch",
    "ReplayResult",
    "ReplayStepError",
    "compare_pages",
    "load_program",
    "replay",
    "replay_document",
    "replay_in_browser",
]
