"""The HMM crawler's model: levels from links, clusters, transitions, emissions, beliefs."""

from __future__ import annotations

import numpy as np
import pytest

from deepbot.content import ACCEPT, Fetched, ProcessContext, build_document, default_registry
from deepbot.policy.hmm import LEVELS, PathProcessor, TrainingPage, levels, train
from deepbot.policy.topic import Topic
from deepbot.routes import Route, Via, route_key

GARDEN = "garden tools pruning secateurs spade compost soil"
SPORT = "match goal league season coach players team score"
CARS = "car engine diesel battery tyres brakes gearbox"


def _site() -> list[TrainingPage]:
    """home → sport, cars, living; living → garden index → two garden stories."""
    return [
        TrainingPage("/", None, "front page of the valley post " * 3),
        TrainingPage("/sport", "/", SPORT * 3), TrainingPage("/sport/1", "/sport", SPORT * 4),
        TrainingPage("/cars", "/", CARS * 3), TrainingPage("/cars/1", "/cars", CARS * 4),
        TrainingPage("/living", "/", "living travel fashion home " * 3),
        TrainingPage("/living/garden", "/living", GARDEN * 2),
        TrainingPage("/living/garden/1", "/living/garden", GARDEN * 4),
        TrainingPage("/living/garden/2", "/living/garden", GARDEN * 4),
    ]


def test_levels_count_links_back_from_the_relevant_pages() -> None:
    pages = _site()
    found = levels(pages, {"/living/garden", "/living/garden/1", "/living/garden/2"})
    assert found == {"/": 2, "/sport": 3, "/sport/1": 3, "/cars": 3, "/cars/1": 3, "/living": 1,
                     "/living/garden": 0, "/living/garden/1": 0, "/living/garden/2": 0}


def test_every_link_between_training_pages_counts_not_only_the_first_way_in() -> None:
    # The crawl reached the garden index from the living section first; the sport page
    # links to it too (its HTML says so), and so is one link from the topic as well.
    pages = [*_site()[:6], TrainingPage("/sport/garden-day", "/sport", SPORT, links=("/living/garden", "/x"))]
    pages += _site()[6:]
    found = levels(pages, {"/living/garden", "/living/garden/1", "/living/garden/2"})
    assert found["/sport/garden-day"] == 1 and found["/sport"] == 2  # was 3: only its parent's link counted
    model = train(pages, Topic("garden tools"), 0.2, k=4)
    assert model.transitions[1, 0] > model.transitions[3, 0]


def test_the_model_learns_that_a_level_1_page_leads_to_the_topic() -> None:
    model = train(_site(), Topic("garden tools"), 0.2, k=4)
    assert model.transitions.shape == (LEVELS, LEVELS) and model.emissions.shape == (LEVELS, 5)
    assert np.allclose(model.transitions.sum(axis=1), 1) and np.allclose(model.emissions.sum(axis=1), 1)
    assert model.transitions[1, 0] > model.transitions[3, 0]  # living → garden; sport → sport
    assert model.cluster(GARDEN) == 0 and model.cluster(SPORT) != 0
    # A page like the living section's, reached from the front page, is believed nearer the
    # topic than a sport page: its links are more likely to lead there.
    start = model.initial
    assert model.step(start, "living travel fashion home")[0] > model.step(start, SPORT)[0]
    assert model.relevance(GARDEN) > 0.8 > 0.1 > model.relevance(CARS)


def test_nothing_to_learn_without_a_relevant_page() -> None:
    with pytest.raises(ValueError, match="no page of the training crawl is near the topic"):
        train(_site(), Topic("opera singers"), 0.2)


def _context(url: str, text: str, hint: str | None) -> ProcessContext:
    route = Route(key=route_key(Via.LINK, url), url=url, via=Via.LINK, steps="", program="", hint=hint)
    fetched = Fetched(url=url, final_url=url, status=200, content_type="text/html",
                      html=f"<p>{text}</p>", visible_text=text)
    content = default_registry().handle(fetched)
    return ProcessContext(route, fetched, content, build_document(route, fetched, content), ACCEPT)


async def test_a_link_carries_the_belief_over_its_page_level_to_the_page() -> None:
    model = train(_site(), Topic("garden tools"), 0.2, k=4)
    paths = PathProcessor(model)
    living = _context("https://valley.example/living", "living travel fashion home", None)
    living = await paths.process(living)
    assert living.link_hint is not None
    hint = living.link_hint("https://valley.example/living/garden")
    onward = model.step(model.initial, living.document.text)
    assert hint is not None and np.allclose(paths.belief(hint), onward)
    # The page the link leads to starts from that belief, as it would in a resumed crawl;
    # a route without one (a seed) starts from the prior, and believes otherwise.
    garden = "https://valley.example/living/garden"
    carried, fresh = (_context(garden, "garden index", h) for h in (hint, None))
    carried = await paths.process(carried)
    fresh = await paths.process(fresh)
    assert carried.document.meta["path_to_topic"] != fresh.document.meta["path_to_topic"]
    for broken in ("0.5,x", "1,0", ""):  # not a belief over the levels: the prior
        assert np.allclose(paths.belief(broken), model.initial)
