"""DeepBot: a crawler for the deep web."""

from deepbot.errors import DeepBotError

__all__ = ["DeepBotError"]
__version__ = "0.1.0"
