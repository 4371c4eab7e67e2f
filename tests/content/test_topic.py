"""Best-first focused crawling's similarity: term vectors, cosine, a link's priority."""

from __future__ import annotations

import pytest

from deepbot.config import CrawlConfig
from deepbot.config.load import validate_config
from deepbot.errors import ConfigError
from deepbot.policy.topic import Topic, terms


def test_terms_are_stemmed_words_without_stop_words() -> None:
    assert terms("The Gardener's tools: pruning, PRUNED and prunes — and 2 spades!") == {
        "garden": 1, "tool": 1, "prune": 3, "spade": 1}


def test_similarity_is_the_cosine_of_term_vectors() -> None:
    topic = Topic("garden tools")
    assert topic.similarity("Garden tools") == pytest.approx(1.0)
    assert topic.similarity("tools for the garden, garden tools") == pytest.approx(1.0)
    assert topic.similarity("garden party") == pytest.approx(0.5)  # (1·1) / (√2·√2)
    assert topic.similarity("match report: a late goal") == 0.0
    assert topic.similarity("") == 0.0


def test_a_links_priority_is_the_mean_of_page_and_anchor() -> None:
    topic = Topic("garden tools")
    assert topic.link_priority(0.5, "Garden tools") == pytest.approx(0.75)
    assert topic.link_priority(0.5, "Sport") == pytest.approx(0.25)
    assert topic.link_priority(0.0, "Choosing garden tools") > topic.link_priority(0.0, "Choosing a car")


def test_a_topic_needs_words() -> None:
    with pytest.raises(ConfigError, match="topic 'the and of' has no words"):
        validate_config({"seeds": ("http://a.test/",), "topic": "the and of"}, "command line")
    assert CrawlConfig(topic="garden").topic == "garden"
