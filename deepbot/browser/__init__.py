"""The mini-browser layer: one Chromium, many contexts."""

from deepbot.browser.launch import chromium, find_chromium, launch_chromium
from deepbot.browser.switches import CHROMIUM_ARGS, chromium_args

__all__ = ["CHROMIUM_ARGS", "chromium", "chromium_args", "find_chromium", "launch_chromium"]
