"""The one base of the small typed models that travel between stages.

Frozen, so a stage cannot change what an earlier one handed on (it makes a copy with
``model_copy(update=...)``), and strict about fields, so a misspelt one is an error at
once rather than a value silently dropped. Imports nothing of DeepBot: any part may use it.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
