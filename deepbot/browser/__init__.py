"""The mini-browser layer: one Chromium, many contexts."""

from deepbot.browser.launch import CHROMIUM_ARGS, find_chromium, launch_chromium

__all__ = ["CHROMIUM_ARGS", "find_chromium", "launch_chromium"]
